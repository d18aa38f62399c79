// Vercel's `run` (npm `run`): a fresh QuickJS (quickjs-ng, WebAssembly) context in a worker thread per
// run; host functions are plain functions the guest calls by name, their results serialized by run's own
// guest-side serializer. The tools are host functions under `tools`; for W4 they wrap an MCP SDK Client.
// Runs on Node 22 (the peers' Node), from the peers' cache.
/* global process */
import { importFrom, mcpTools, prelude, serveDriver } from './common.mjs';
import { tools } from '../data.mjs';

await serveDriver({
  async load(options) {
    return { run: await importFrom(options.prefix, 'run') };
  },
  async setup({ run }, options) {
    const mcp = await mcpTools(options, 'bench-vercel-run');
    const host = { ...tools, ...mcp.tools };
    return {
      info: `Vercel run on Node ${process.version}`,
      async run(body, uses) {
        const result = await run.run({
          source: prelude(uses, (name) => `tools.${name}`) + body,
          hostFunctions: { tools: host },
          // The bench's workloads need room: W5a returns 5.7 MB, W2 makes 1,000 calls, W3 has 100 in
          // flight (run's defaults: 1 MiB result, 256 requests, 32 in flight, 64 MiB of memory, 30 s).
          limits: {
            timeoutMs: 120_000,
            memoryLimitBytes: 128 * 1024 * 1024,
            maxResultBytes: 64 * 1024 * 1024,
            maxHostFunctionOutputBytes: 64 * 1024 * 1024,
            maxBridgeRequests: 5000,
            maxInFlightBridgeRequests: 200,
          },
        });
        if (result.status !== 'completed') throw new Error(`Vercel run did not complete: ${JSON.stringify(result).slice(0, 500)}`);
        return result.value;
      },
      close: mcp.close,
    };
  },
});
