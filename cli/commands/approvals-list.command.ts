import { defineCommand, pick } from '../command.js';

export const command = defineCommand({
  name: 'approvals list',
  synopsis: ['agent-spaces approvals list [--all] [--json]'],
  description: "the durable runs' approvals waiting for a decision (--all: decided ones too)",
  options: ['config', 'cwd', 'store', 'json', 'all'],
  async run({ args, common, values }) {
    return (await import('./approvals.js')).approvalsCommand({
      ...common,
      action: 'list',
      args,
      all: values.all === true,
      ...pick(values, ['store']),
    });
  },
});
