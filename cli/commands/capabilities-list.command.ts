import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'capabilities list',
  synopsis: ['agent-spaces capabilities list [--json]'],
  description: 'list modules and functions with their signatures (--json: the catalog)',
  options: ['config', 'cwd', 'json'],
  async run({ args, common }) {
    if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (capabilities list takes options only)`);
    return (await import('./capabilities.js')).listCommand({ ...common, force: false });
  },
});
