import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'worker',
  synopsis: ['agent-spaces worker [--store <url>] [--concurrency <n>] [--id <id>]'],
  description:
    'execute durable runs queued in the store, with this space (any number of workers, on any machine\nreaching the database); takes over the runs of workers that died. Stops on Ctrl-C (its runs go to\nother workers)',
  options: ['config', 'cwd', 'store', 'concurrency', 'id', 'verbose'],
  stopsItself: true,
  async run({ args: [first], cwd, common, values }) {
    if (first) throw new UsageError(`unexpected argument "${first}" (worker takes options only)`);
    return (await import('./worker.js')).workerCommand({
      cwd,
      ...(common.config ? { config: common.config } : {}),
      ...pick(values, ['store', 'concurrency', 'id']),
      verbose: values.verbose === true,
    });
  },
});
