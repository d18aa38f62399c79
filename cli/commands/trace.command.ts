import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'trace',
  synopsis: ['agent-spaces trace <run-or-task-id> [--store <url>]'],
  description:
    "the trace of a run or task a worker executed, from the store, as JSON lines: a task's are a trace\nfile's (save them and pass the file to task --replay), a run's are its events (logs, approvals, end)",
  options: ['config', 'cwd', 'store'],
  async run({ args: [first, ...rest], cwd, common, values }) {
    if (!first || rest.length > 0) throw new UsageError('trace takes one run or task id: agent-spaces trace <id> --store <url>');
    return (await import('./trace.js')).traceCommand({
      cwd,
      ...(common.config ? { config: common.config } : {}),
      ...pick(values, ['store']),
      id: first,
    });
  },
});
