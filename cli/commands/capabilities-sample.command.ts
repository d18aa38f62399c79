import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'capabilities sample',
  synopsis: ["agent-spaces capabilities sample <module.function> [--args '<json>'] [--approve <all|none>]"],
  description:
    'call a read-only MCP tool without an output schema through the space (approvals apply) and learn its\nresult type from the JSON text it returns (kept in <outDir>/inferred/); the next "capabilities build"\ndeclares it. Refuses a tool not known to be read-only: set mcpServers.<server>.sideEffects, or the\ntool\'s readOnlyHint annotation says so',
  options: ['config', 'cwd', 'json', 'args', 'approve'],
  async run({ args: [first, ...rest], common, values }) {
    if (!first)
      throw new UsageError("capabilities sample needs a function: agent-spaces capabilities sample <module.function> [--args '<json>']");
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the arguments: --args '{"a": 1}')`);
    return (await import('./sample.js')).sampleCommand({ ...common, id: first, ...pick(values, ['args', 'approve']) });
  },
});
