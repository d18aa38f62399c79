// @tanstack/ai-code-mode with @tanstack/ai-isolate-node: the tools are TanStack `toolDefinition(…).server(…)`
// tools, exposed in the sandbox as `external_<name>`; createCodeModeTool({ driver, tools }) gives the
// `execute_typescript` tool, whose execute({ typescriptCode }) strips the types (sucrase) and runs the
// program in a fresh isolate. Its MCP package (@tanstack/ai-mcp 0.2.5) needs @tanstack/ai 0.42, which
// ai-code-mode 0.3.4 does not accept, so for W4 a tool wraps an MCP SDK Client (the repo's SDK).
// Runs on Node 22 with the cache's isolated-vm 6.
/* global process */
import { importFrom, prelude, serveDriver } from './common.mjs';
import { tanstackTools } from './tanstack-tools.mjs';

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
    const { definitions, close } = await tanstackTools({ ai, z }, options, 'bench-tanstack');
    const tool = codeMode.createCodeModeTool({
      driver: isolateNode.createNodeIsolateDriver(),
      tools: definitions,
      timeout: 120_000,
      memoryLimit: 128,
    });
    return {
      info: `@tanstack/ai-code-mode on Node ${process.version}`,
      async run(body, uses) {
        const output = await tool.execute({ typescriptCode: prelude(uses, (name) => `external_${name}`) + body });
        if (!output.success) throw new Error(`TanStack run failed: ${JSON.stringify(output.error)}`);
        return output.result;
      },
      close,
    };
  },
});
