import { defineCommand, pick } from '../command.js';

export const command = defineCommand({
  name: 'approvals approve',
  synopsis: ['agent-spaces approvals approve <id> [--reason <text>]'],
  description: 'approve a waiting call of a durable run (the id, or its start, as listed); the run goes on',
  options: ['config', 'cwd', 'store', 'json', 'reason'],
  async run({ args, common, values }) {
    return (await import('./approvals.js')).approvalsCommand({
      ...common,
      action: 'approve',
      args,
      all: false,
      ...pick(values, ['store', 'reason']),
    });
  },
});
