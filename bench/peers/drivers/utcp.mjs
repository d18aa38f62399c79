// @utcp/code-mode: a CodeModeUtcpClient with the tools registered in-process through a direct-call
// manual (`bench.echo`, …), and the MCP server through UTCP's own MCP plugin (`mcp.bench_echo`, …).
// callToolChain(code) runs the text as JavaScript (no transpile) in a fresh isolate per call; tools
// are synchronous in the sandbox (applySyncPromise), so awaiting their result is a no-op.
// Runs on Node 22 with the cache's isolated-vm 6.
/* global process */
import { importFrom, prelude, serveDriver } from './common.mjs';
import { tools } from '../data.mjs';

const NAMES = {
  echo: 'bench.echo',
  sleep: 'bench.sleep',
  big: 'bench.big',
  chunk: 'bench.chunk',
  mcpEcho: 'mcp.bench_echo',
  mcpWork: 'mcp.bench_work',
};
const object = (properties, required) => ({ type: 'object', properties, required });

await serveDriver({
  async load(options) {
    const [codeMode, directCall, mcp] = await Promise.all([
      importFrom(options.prefix, '@utcp/code-mode'),
      importFrom(options.prefix, '@utcp/direct-call'),
      options.mcpServer ? importFrom(options.prefix, '@utcp/mcp') : undefined,
    ]);
    return { codeMode, directCall, mcp };
  },
  async setup({ codeMode, directCall }, options) {
    const { addFunctionToUtcpDirectCall } = directCall;
    // direct-call spreads the argument object's values as parameters: echo({ text }) → fn(text).
    addFunctionToUtcpDirectCall('bench_echo', (text) => tools.echo({ text }));
    addFunctionToUtcpDirectCall('bench_sleep', (ms) => tools.sleep({ ms }));
    addFunctionToUtcpDirectCall('bench_big', () => tools.big());
    addFunctionToUtcpDirectCall('bench_chunk', (i) => tools.chunk({ i }));
    const tool = (name, inputs) => ({
      name,
      description: name,
      inputs,
      outputs: { type: 'object' },
      tags: [],
      tool_call_template: { call_template_type: 'direct-call', callable_name: `bench_${name}` },
    });
    addFunctionToUtcpDirectCall('bench_manual', () => ({
      utcp_version: '1.0.0',
      manual_version: '1.0.0',
      tools: [
        tool('echo', object({ text: { type: 'string' } }, ['text'])),
        tool('sleep', object({ ms: { type: 'number' } }, ['ms'])),
        tool('big', object({}, [])),
        tool('chunk', object({ i: { type: 'number' } }, ['i'])),
      ],
    }));
    const client = await codeMode.CodeModeUtcpClient.create(process.cwd(), null);
    const registered = await client.registerManual({ name: 'bench', call_template_type: 'direct-call', callable_name: 'bench_manual' });
    if (registered?.success === false)
      throw new Error(`UTCP: registering the bench manual failed: ${JSON.stringify(registered.errors ?? registered)}`);
    if (options.mcpServer) {
      const result = await client.registerManual({
        name: 'mcp',
        call_template_type: 'mcp',
        config: { mcpServers: { bench: { transport: 'stdio', command: options.mcpNode, args: [options.mcpServer] } } },
      });
      if (result?.success === false) throw new Error(`UTCP: registering the MCP manual failed: ${JSON.stringify(result.errors ?? result)}`);
    }
    return {
      info: `@utcp/code-mode on Node ${process.version}`,
      async run(body, uses) {
        const { result, logs } = await client.callToolChain(prelude(uses, (name) => NAMES[name]) + body, 120_000, 128);
        const failure = logs.find((line) => line.startsWith('[ERROR] Code execution failed'));
        if (failure) throw new Error(`UTCP run failed: ${failure}`);
        return result;
      },
      async close() {
        await client.close?.();
      },
    };
  },
});
