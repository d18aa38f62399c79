import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'store prune',
  synopsis: ['agent-spaces store prune [--older-than <duration>] [--store <url>]'],
  description:
    "delete the rows of durable runs that ended longer ago than --older-than: their events, call journal,\ndecided approvals, model replies and DBOS's workflow rows (never an unfinished run or a pending approval;\nworkers do it too with durable.retention in the config)",
  options: ['config', 'cwd', 'store', 'older-than', 'json'],
  async run({ args, common, values }) {
    if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (store prune takes options only)`);
    return (await import('./store.js')).storePruneCommand({
      ...common,
      ...pick(values, ['store']),
      ...(values['older-than'] !== undefined ? { olderThan: values['older-than'] } : {}),
    });
  },
});
