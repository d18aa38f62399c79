// The raw designs across a hop: raw isolated-vm as the floor driver runs it (floor.mjs: a fresh 128 MB
// isolate per run, the program transpiled by esbuild, the result out as JSON) — or with `engine: 'quickjs'`
// bare QuickJS as the QuickJS floor runs it (quickjs-run.mjs) — but on the far side of a hop from the
// host's tools, as Agent Spaces' own tiers keep the sandbox: in a child process (`hop: 'process'`, frames
// on a socketpair, hop-frames.mjs) or on a worker thread of this process (`hop: 'thread'`, strings over its
// port), with nothing else: no validation, no limits but memory and time, no journal. Every call crosses
// to the host and back (`__call`, hop-sandbox.mjs), its arguments and result as JSON text. What a design
// that keeps the sandbox off the host's thread pays with no framework, workload by workload.
/* global process, URL */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mcpTools, serveDriver } from './common.mjs';
import { frameReader, writeFrame } from './hop-frames.mjs';
import { tools } from '../data.mjs';

const SANDBOX = fileURLToPath(new URL('./hop-sandbox.mjs', import.meta.url));

/** Starts the far side; `onFrame(header, body)` gets its frames. Returns `send(header, body)` and `close()`. */
function startFarSide(options, onFrame) {
  const settings = { ivmPrefix: options.ivmPrefix, engine: options.engine };
  if (options.hop === 'thread') {
    const worker = new Worker(SANDBOX, { workerData: settings });
    worker.on('message', ([header, body]) => onFrame(header, body));
    worker.on('error', (error) => onFrame(JSON.stringify({ t: 'broken' }), error.message));
    return { send: (header, body = '') => worker.postMessage([header, body]), close: () => worker.terminate() };
  }
  if (options.hop !== 'process') throw new Error(`hop floor: the hop is process or thread (got ${JSON.stringify(options.hop)})`);
  const child = spawn(process.execPath, ['--no-node-snapshot', SANDBOX, JSON.stringify(settings)], {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  const socket = child.stdio[3];
  socket.on('data', frameReader(onFrame));
  child.on('exit', (code, signal) => onFrame(JSON.stringify({ t: 'broken' }), `the sandbox process exited (${code ?? signal})`));
  return {
    send: (header, body = '') => writeFrame(socket, header, body),
    close: () => {
      socket.end();
      child.kill();
    },
  };
}

await serveDriver({
  async load() {
    return { esbuild: await import('esbuild') };
  },
  async setup({ esbuild }, options) {
    const mcp = await mcpTools(options, 'bench-hop-floor');
    const host = { ...tools, ...mcp.tools };
    const runs = new Map(); // run id → { resolve, reject } of its result
    let nextRun = 0;
    let ready;
    const started = new Promise((resolve, reject) => (ready = { resolve, reject }));
    const far = startFarSide(options, (headerText, body) => {
      const header = JSON.parse(headerText);
      if (header.t === 'call') {
        Promise.resolve()
          .then(() => host[header.name](JSON.parse(body)))
          .then(
            (value) => far.send(JSON.stringify({ t: 'reply', run: header.run, id: header.id, ok: true }), JSON.stringify(value)),
            (error) => far.send(JSON.stringify({ t: 'reply', run: header.run, id: header.id, ok: false }), String(error)),
          );
      } else if (header.t === 'done') {
        const run = runs.get(header.run);
        runs.delete(header.run);
        if (header.ok) run?.resolve(body);
        else run?.reject(new Error(`hop floor run failed: ${body}`));
      } else if (header.t === 'ready') ready.resolve(header.info);
      else if (header.t === 'broken') {
        const error = new Error(`hop floor: ${body}`);
        ready.reject(error);
        for (const run of runs.values()) run.reject(error);
        runs.clear();
      }
    });
    const info = await started;
    return {
      info: `${info}, across ${options.hop === 'thread' ? 'threads' : 'processes'}`,
      async run(body, uses) {
        const run = ++nextRun;
        const result = new Promise((resolve, reject) => runs.set(run, { resolve, reject }));
        if (options.engine === 'quickjs') {
          far.send(JSON.stringify({ t: 'run', run, uses }), body);
          return JSON.parse(await result);
        }
        const binds = uses
          .map(
            (name) =>
              `const ${name} = async (args) => JSON.parse(await __call.apply(undefined, [${JSON.stringify(name)}, JSON.stringify(args)], { result: { promise: true } }));`,
          )
          .join('\n');
        const source = `${binds}\n(async () => {\n${body}\n})().then((value) => JSON.stringify(value === undefined ? null : value));`;
        far.send(JSON.stringify({ t: 'run', run, uses }), esbuild.transformSync(source, { loader: 'ts' }).code);
        return JSON.parse(await result);
      },
      async close() {
        far.close();
        await mcp.close();
      },
    };
  },
});
