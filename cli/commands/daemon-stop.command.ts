import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'daemon stop',
  synopsis: ['agent-spaces daemon stop'],
  description: "stop the user's daemon of this Node and install (its running commands finish first)",
  options: ['json'],
  // Makes no isolate: answered in the bin's own process.
  needsIsolateFlag: () => Promise.resolve(false),
  async run({ args, values }) {
    if (args.length > 0) throw new UsageError(`unexpected argument "${args.join(' ')}" (daemon stop takes options only)`);
    return (await import('./daemon.js')).daemonStopCommand({ json: values.json === true });
  },
});
