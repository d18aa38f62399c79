// @tanstack/ai-code-mode with @tanstack/ai-isolate-node: the tools are TanStack `toolDefinition(…).server(…)`
// tools, exposed in the sandbox as `external_<name>`; createCodeModeTool({ driver, tools }) gives the
// `execute_typescript` tool, whose execute({ typescriptCode }) strips the types (sucrase) and runs the
// program in a fresh isolate. Its MCP package (@tanstack/ai-mcp 0.2.5) needs @tanstack/ai 0.42, which
// ai-code-mode 0.3.4 does not accept, so for W4 a tool wraps an MCP SDK Client (the repo's SDK).
// Runs on Node 22 with the cache's isolated-vm 6.
/* global process */
import { importFrom, prelude, serveDriver } from './common.mjs';
import { tools } from '../data.mjs';

await serveDriver({
  async load(options) {
    const [ai, codeMode, isolateNode, zod] = await Promise.all([
      importFrom(options.prefix, '@tanstack/ai'),
      importFrom(options.prefix, '@tanstack/ai-code-mode'),
      importFrom(options.prefix, '@tanstack/ai-isolate-node'),
      importFrom(options.prefix, 'zod'),
    ]);
    return { ai, codeMode, isolateNode, z: zod.z };
  },
  async setup({ ai, codeMode, isolateNode, z }, options) {
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
      client = new Client({ name: 'bench-tanstack', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: options.mcpNode, args: [options.mcpServer], stderr: 'inherit' }));
      definitions.push(
        define('mcpEcho', z.object({ text: z.string() }), (args) => client.callTool({ name: 'echo', arguments: args })),
        define('mcpWork', z.object({ ms: z.number() }), (args) => client.callTool({ name: 'work', arguments: args })),
      );
    }
    const tool = codeMode.createCodeModeTool({ driver: isolateNode.createNodeIsolateDriver(), tools: definitions, timeout: 120_000, memoryLimit: 128 });
    return {
      info: `@tanstack/ai-code-mode on Node ${process.version}`,
      async run(body, uses) {
        const output = await tool.execute({ typescriptCode: prelude(uses, (name) => `external_${name}`) + body });
        if (!output.success) throw new Error(`TanStack run failed: ${JSON.stringify(output.error)}`);
        return output.result;
      },
      async close() {
        await client?.close();
      },
    };
  },
});
