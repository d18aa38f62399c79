import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'capabilities build',
  synopsis: ['agent-spaces capabilities build [--force] [--json]'],
  description:
    'compile every capability source into the build output: progress per source on stderr, a summary (or --json) on stdout;\na source that fails keeps its last good module (said, and warned of at every run); writes <outDir>/tsconfig.json\nfor editors and tsc once',
  options: ['config', 'cwd', 'json', 'force'],
  async run({ args, common, values }) {
    if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (capabilities build takes options only)`);
    return (await import('./capabilities.js')).buildCommand({ ...common, force: values.force === true });
  },
});
