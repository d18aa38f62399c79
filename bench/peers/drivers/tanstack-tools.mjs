// The bench's tools as TanStack `toolDefinition(…).server(…)` tools, shared by both TanStack drivers (the
// isolated-vm one and the QuickJS one): the data tools and, when an MCP server is given, mcpEcho/mcpWork
// through an MCP SDK Client (TanStack's own MCP package needs a newer @tanstack/ai than ai-code-mode takes).
import { tools } from '../data.mjs';
import { mcpTools } from './common.mjs';

/** Returns the tool definitions and a `close()` for the MCP client, if one was started. */
export async function tanstackTools({ ai, z }, options, clientName) {
  const { toolDefinition } = ai;
  const define = (name, inputSchema, execute) => toolDefinition({ name, description: name, inputSchema }).server(execute);
  const definitions = [
    define('echo', z.object({ text: z.string() }), tools.echo),
    define('sleep', z.object({ ms: z.number() }), tools.sleep),
    define('big', z.object({}), () => tools.big()),
    define('chunk', z.object({ i: z.number() }), tools.chunk),
  ];
  const mcp = await mcpTools(options, clientName);
  if (mcp.tools.mcpEcho)
    definitions.push(
      define('mcpEcho', z.object({ text: z.string() }), mcp.tools.mcpEcho),
      define('mcpWork', z.object({ ms: z.number() }), mcp.tools.mcpWork),
    );
  return { definitions, close: mcp.close };
}
