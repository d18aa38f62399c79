// The raw designs across a hop: raw isolated-vm as the floor driver runs it (floor.mjs: a fresh 128 MB
// isolate per run, the result out as JSON) — or with `engine: 'quickjs'` bare QuickJS as the QuickJS floor
// runs it (quickjs-run.mjs) — but on the far side of a hop from the host's tools, as Agent Spaces' own
// tiers keep the sandbox: in child processes (`hop: 'process'`, frames on a socketpair, hop-frames.mjs) or
// on worker threads of this process (`hop: 'thread'`, strings over their ports), with nothing else: no
// validation, no limits but memory and time, no journal, no transpiling (the workloads are plain
// JavaScript). Every call crosses to the host and back (`__call`, hop-sandbox.mjs), its arguments and
// result as JSON text. Like Agent Spaces' pool (two workers by default), it starts one far side and a
// second once runs overlap (`workers`, default 2), each run on the least busy. What a design that keeps
// the sandbox off the host's thread pays with no framework, workload by workload.
/* global process, URL */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mcpTools, serveDriver } from './common.mjs';
import { frameReader, writeFrame } from './hop-frames.mjs';
import { tools } from '../data.mjs';

const SANDBOX = fileURLToPath(new URL('./hop-sandbox.mjs', import.meta.url));

/**
 * Starts one far side; `onFrame(header, body)` gets its frames, `onBroken(reason)` hears once that it
 * died. Returns `send(header, body)` and `close()`.
 */
function startFarSide(options, onFrame, onBroken) {
  const settings = { ivmPrefix: options.ivmPrefix, engine: options.engine };
  let closing = false;
  if (options.hop === 'thread') {
    const worker = new Worker(SANDBOX, { workerData: settings });
    worker.on('message', ([header, body]) => onFrame(header, body));
    worker.on('error', (error) => onBroken(`its thread failed: ${error.message}`));
    worker.on('exit', (code) => closing || onBroken(`its thread exited (${code})`));
    return {
      send: (header, body = '') => worker.postMessage([header, body]),
      close: () => ((closing = true), worker.terminate()),
    };
  }
  if (options.hop !== 'process') throw new Error(`hop floor: the hop is process or thread (got ${JSON.stringify(options.hop)})`);
  const child = spawn(process.execPath, ['--no-node-snapshot', SANDBOX, JSON.stringify(settings)], {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  });
  const socket = child.stdio[3];
  socket.on('data', frameReader(onFrame));
  child.on('exit', (code, signal) => closing || onBroken(`its process exited (${code ?? signal})`));
  return {
    send: (header, body = '') => writeFrame(socket, header, body),
    close: () => {
      closing = true;
      socket.end();
      child.kill();
    },
  };
}

await serveDriver({
  async load() {
    return {};
  },
  async setup(_modules, options) {
    const mcp = await mcpTools(options, 'bench-hop-floor');
    const host = { ...tools, ...mcp.tools };
    const workers = options.workers ?? 2;
    const runs = new Map(); // run id → { resolve, reject } of its result's JSON text
    const farSides = [];
    let nextRun = 0;

    const onFrameOf = (far) => (headerText, body) => {
      const header = JSON.parse(headerText);
      if (header.t === 'call') {
        Promise.resolve()
          .then(() => host[header.name](JSON.parse(body)))
          .then(
            (value) => far.send(JSON.stringify({ t: 'reply', run: header.run, id: header.id, ok: true }), JSON.stringify(value ?? null)),
            (error) => far.send(JSON.stringify({ t: 'reply', run: header.run, id: header.id, ok: false }), String(error)),
          );
      } else if (header.t === 'done') {
        far.load--;
        const run = runs.get(header.run);
        runs.delete(header.run);
        if (header.ok) run?.resolve(body);
        else run?.reject(new Error(`hop floor run failed: ${body}`));
      } else if (header.t === 'ready') {
        far.ready = true;
        far.info = header.info;
        far.markReady();
      }
    };
    // A raw design has no recovery: the driver ends, and the bench starts it again for the next workload.
    const onBroken = (reason) => {
      process.stderr.write(`hop floor: a far side died: ${reason}\n`);
      process.exit(1);
    };
    /** A far side: its runs in flight (`load`), whether it said it is ready, and `started` for when it does. */
    const start = () => {
      const far = { load: 0, ready: false, info: '' };
      far.started = new Promise((resolve) => (far.markReady = resolve));
      Object.assign(far, startFarSide(options, onFrameOf(far), onBroken));
      farSides.push(far);
      return far;
    };
    const first = start();
    await first.started;
    return {
      info: `${first.info}, across ${options.hop === 'thread' ? 'threads' : 'processes'} (up to ${workers})`,
      async run(body, uses) {
        const far = farSides.filter((side) => side.ready).reduce((best, side) => (side.load < best.load ? side : best));
        if (far.load > 0 && farSides.length < workers) start();
        far.load++;
        const run = ++nextRun;
        const result = new Promise((resolve, reject) => runs.set(run, { resolve, reject }));
        if (options.engine === 'quickjs') far.send(JSON.stringify({ t: 'run', run, uses }), body);
        else {
          const binds = uses
            .map(
              (name) =>
                `const ${name} = async (args) => JSON.parse(await __call.apply(undefined, [${JSON.stringify(name)}, JSON.stringify(args)], { result: { promise: true } }));`,
            )
            .join('\n');
          far.send(
            JSON.stringify({ t: 'run', run, uses }),
            `${binds}\n(async () => {\n${body}\n})().then((value) => JSON.stringify(value === undefined ? null : value));`,
          );
        }
        return JSON.parse(await result);
      },
      async close() {
        for (const far of farSides) far.close();
        await mcp.close();
      },
    };
  },
});
