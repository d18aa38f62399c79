// The floor: raw isolated-vm with no framework — a fresh isolate and context per run, the program run as
// it is (the workloads are plain JavaScript; until 2026-12-01 it went through esbuild, whose service
// round trip added ~0.5–2 ms to a W1 run), tools bound as ivm.References (synchronous host tools through applySync,
// asynchronous ones through apply with a promise result, so parallel calls overlap), the result copied
// out as JSON. For W4 it runs the program's text directly on the host against an MCP
// SDK Client — the direct `Client.callTool` baseline. Runs on the repo's Node and its isolated-vm.
// Its probe `pipe` is the W2 floor of any design whose isolate lives in another process than the
// host's tools: sequential 1-byte round trips to a child Node process over a socketpair (pipeRoundTrips).
// Run by Node 22 with the peers' isolated-vm 6 (`ivmPrefix`), it is the floor of the peers' runtime.
/* global process, Buffer, URL */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { importFrom, jsonWork, mcpTools, serveDriver } from './common.mjs';
import { tools } from '../data.mjs';

const SYNC = new Set(['echo', 'big', 'chunk']);
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
const PIPE_ECHO = fileURLToPath(new URL('./pipe-echo.mjs', import.meta.url));

/**
 * A child Node process (this Node, --no-node-snapshot, as the sandbox workers run) spawned with stdio
 * 'pipe' on fd 3 — a Unix socketpair — that echoes what it reads there (pipe-echo.mjs). Started once and
 * kept: `roundTrips(count)` times only the round trips, one byte in flight at a time, each awaited.
 */
function pipeRoundTrips() {
  const child = spawn(process.execPath, ['--no-node-snapshot', PIPE_ECHO], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  const socket = child.stdio[3];
  let waiting;
  socket.on('data', (chunk) => {
    for (let index = 0; index < chunk.length; index++) waiting?.();
  });
  const byte = Buffer.from([42]);
  return {
    async roundTrips(count) {
      let done = 0;
      for (let index = 0; index < count; index++) {
        await new Promise((resolve) => {
          waiting = resolve;
          socket.write(byte);
        });
        done++;
      }
      return done;
    },
    close() {
      socket.end();
      child.kill();
    },
  };
}

await serveDriver({
  async load(options) {
    // On Node 22 (`ivmPrefix`: the peers' cache) isolated-vm 6; on Node 20 the repo's isolated-vm 5.
    const ivm = await (options.ivmPrefix ? importFrom(options.ivmPrefix, 'isolated-vm') : import('isolated-vm'));
    return { ivm: ivm.default ?? ivm };
  },
  async setup({ ivm }, options) {
    const mcp = await mcpTools(options, 'bench-floor');
    // echoAsync: W2's echo bound asynchronously (the W2async row), so the isolate is not blocked by its calls.
    const host = { ...tools, echoAsync: async (args) => tools.echo(args), ...mcp.tools };
    let pipe;
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
          const script = await isolate.compileScript(source);
          const json = await script.run(context, { promise: true, timeout: 120_000 });
          return JSON.parse(json);
        } finally {
          isolate.dispose();
        }
      },
      async probe(request) {
        const { name, count } = request;
        if (name === 'json') return jsonWork(ivm, request);
        if (name !== 'pipe') throw new Error(`floor: no probe ${name}`);
        pipe ??= pipeRoundTrips();
        return pipe.roundTrips(count);
      },
      async close() {
        pipe?.close();
        await mcp.close();
      },
    };
  },
});
