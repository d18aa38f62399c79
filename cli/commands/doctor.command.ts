import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'doctor',
  synopsis: ['agent-spaces doctor [--json]'],
  description:
    'check the installation: Node, each sandbox engine (every copy tried and why it does not load),\nwhich engine `auto` picks, and what to do',
  options: ['json'],
  async run({ args: [first], values }) {
    if (first) throw new UsageError(`unexpected argument "${first}" (doctor takes options only)`);
    return (await import('./doctor.js')).doctorCommand({ json: values.json === true });
  },
});
