import { defineCommand, pick } from '../command.js';

export const command = defineCommand({
  name: 'approvals deny',
  synopsis: ['agent-spaces approvals deny <id> [--reason <text>]'],
  description: 'deny a waiting call of a durable run: the call fails with APPROVAL_DENIED',
  options: ['config', 'cwd', 'store', 'json', 'reason'],
  async run({ args, common, values }) {
    return (await import('./approvals.js')).approvalsCommand({
      ...common,
      action: 'deny',
      args,
      all: false,
      ...pick(values, ['store', 'reason']),
    });
  },
});
