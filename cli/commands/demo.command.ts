import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'demo',
  synopsis: ['agent-spaces demo'],
  description: 'in a checkout of Agent Spaces (what npm start runs): build the example space and run\nexamples/programs/morning-trains.ts',
  options: ['config', 'cwd'],
  async run({ args: [first], common }) {
    if (first) throw new UsageError(`unexpected argument "${first}" (demo takes options only)`);
    return (await import('./demo.js')).demoCommand(common);
  },
});
