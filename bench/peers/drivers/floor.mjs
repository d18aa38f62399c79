// The floor: raw isolated-vm with no framework — a fresh isolate and context per run, the program
// transpiled by esbuild, tools bound as ivm.References (synchronous host tools through applySync,
// asynchronous ones through apply with a promise result, so parallel calls overlap), the result copied
// out as JSON. For W4 (`direct: true`) it runs the program's text directly on the host against an MCP
// SDK Client — the direct `Client.callTool` baseline. Runs on the repo's Node and its isolated-vm.
/* global process */
import { serveDriver } from './common.mjs';
import { tools } from '../data.mjs';

const SYNC = new Set(['echo', 'big', 'chunk']);
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;

await serveDriver({
  async load() {
    const [{ default: ivm }, esbuild] = await Promise.all([import('isolated-vm'), import('esbuild')]);
    return { ivm, esbuild };
  },
  async setup({ ivm, esbuild }, options) {
    let mcp;
    if (options.mcpServer) {
      const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
      const client = new Client({ name: 'bench-floor', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: options.mcpNode, args: [options.mcpServer], stderr: 'inherit' }));
      mcp = {
        client,
        mcpEcho: (args) => client.callTool({ name: 'echo', arguments: args }),
        mcpWork: (args) => client.callTool({ name: 'work', arguments: args }),
      };
    }
    const host = { ...tools, ...(mcp ? { mcpEcho: mcp.mcpEcho, mcpWork: mcp.mcpWork } : {}) };
    return {
      info: `isolated-vm ${ivm.Isolate ? 'loaded' : '?'} on Node ${process.version}`,
      async run(body, uses) {
        if (uses.some((name) => name.startsWith('mcp'))) {
          // Direct SDK baseline: the same program text, on the host, no sandbox.
          return new AsyncFunction(...uses, body)(...uses.map((name) => host[name]));
        }
        const binds = uses
          .map((name) =>
            SYNC.has(name)
              ? `const ${name} = async (args) => JSON.parse(__${name}.applySync(undefined, [JSON.stringify(args)]));`
              : `const ${name} = async (args) => JSON.parse(await __${name}.apply(undefined, [JSON.stringify(args)], { result: { promise: true } }));`,
          )
          .join('\n');
        const source = `${binds}\n(async () => {\n${body}\n})().then((value) => JSON.stringify(value === undefined ? null : value));`;
        const code = esbuild.transformSync(source, { loader: 'ts' }).code;
        const isolate = new ivm.Isolate({ memoryLimit: 128 });
        try {
          const context = await isolate.createContext();
          for (const name of uses) {
            const fn = host[name];
            const ref = SYNC.has(name)
              ? new ivm.Reference((json) => JSON.stringify(fn(JSON.parse(json))))
              : new ivm.Reference(async (json) => JSON.stringify(await fn(JSON.parse(json))));
            await context.global.set(`__${name}`, ref);
          }
          const script = await isolate.compileScript(code);
          const json = await script.run(context, { promise: true, timeout: 120_000 });
          return JSON.parse(json);
        } finally {
          isolate.dispose();
        }
      },
      async close() {
        await mcp?.client.close();
      },
    };
  },
});
