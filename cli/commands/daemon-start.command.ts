import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'daemon start',
  synopsis: ['agent-spaces daemon start [--idle <minutes>]'],
  description:
    "start the user's daemon: `run` of this install then starts in a warm process (the CLI and the library\nloaded, a sandbox worker and the type-checker started) instead of a new Node; it stops by itself when idle",
  options: ['idle', 'json'],
  // Makes no isolate: answered in the bin's own process.
  needsIsolateFlag: () => Promise.resolve(false),
  async run({ args, values }) {
    if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (daemon start takes options only)`);
    return (await import('./daemon.js')).daemonStartCommand({
      json: values.json === true,
      ...(values.idle !== undefined ? { idle: values.idle } : {}),
    });
  },
});
