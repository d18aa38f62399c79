// The bench's tools as TanStack `toolDefinition(…).server(…)` tools, shared by both TanStack drivers (the
// isolated-vm one and the QuickJS one): the data tools and, when an MCP server is given, mcpEcho/mcpWork
// through an MCP SDK Client (TanStack's own MCP package needs a newer @tanstack/ai than ai-code-mode takes).
import { tools } from '../data.mjs';

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
  let client;
  if (options.mcpServer) {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    client = new Client({ name: clientName, version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: options.mcpNode, args: [options.mcpServer], stderr: 'inherit' }));
    definitions.push(
      define('mcpEcho', z.object({ text: z.string() }), (args) => client.callTool({ name: 'echo', arguments: args })),
      define('mcpWork', z.object({ ms: z.number() }), (args) => client.callTool({ name: 'work', arguments: args })),
    );
  }
  return { definitions, close: async () => client?.close() };
}
