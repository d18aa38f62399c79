import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'daemon status',
  synopsis: ['agent-spaces daemon status'],
  description: "whether the user's daemon of this Node and install runs, and what it has served (exit 1: not running)",
  options: ['json'],
  // Makes no isolate: answered in the bin's own process.
  needsIsolateFlag: () => Promise.resolve(false),
  async run({ args, values }) {
    if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (daemon status takes options only)`);
    return (await import('./daemon.js')).daemonStatusCommand({ json: values.json === true });
  },
});
