// The in-process call path, for a CPU profile: `space.run` of a program making N sequential awaited calls
// to a trivial defineTool tool (the bench's `echo`), isolation 'in-process' (or the one named), on the
// engine named. Prints wall and process CPU (all threads of this process; a sandbox worker's are not in it)
// per call, each minus a trivial run's. Runs in the bench's user project (it needs the built package and
// as-tools.mjs beside it), so after `npm run bench -- peers` built it:
//   cp bench/peers/profile-in-process.mjs bench/.peers/agent-spaces/ && cd bench/.peers/agent-spaces
//   node --no-node-snapshot [--cpu-prof --cpu-prof-dir=/tmp/prof] profile-in-process.mjs isolated-vm|quickjs [calls] [runs] [echo|chunk] [in-process|thread|worker]
// `chunk` makes W5b's calls instead (each returns ~50 KB; the program counts the rows).
//   node --no-node-snapshot profile-in-process.mjs crossings [count]
// measures isolated-vm's own crossings alone, no Agent Spaces (see crossings()): what an in-process
// call's two thread hops cost at the least.
//   node --no-node-snapshot bench/peers/profile-in-process.mjs hops [count]
// (also from the repository) measures, no Agent Spaces, see hops(): a program's sequential calls that the
// host answers a microtask later, sent through an ignored Callback and then waited for through
// applySyncPromise (as Agent Spaces does in-process) against one applySyncPromise carrying the call; and a
// round trip between the main thread and a worker thread by postMessage against SharedArrayBuffer flags.
/* global process, performance, console, URL */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { CHUNK_ROWS } from './data.mjs';

if (!isMainThread) {
  // The worker thread of `hops`: it echoes by postMessage, or answers a shared flag with another.
  const flags = new Int32Array(workerData.flags);
  if (workerData.mode === 'post') parentPort.on('message', (message) => parentPort.postMessage(message));
  parentPort.postMessage('ready');
  if (workerData.mode === 'atomics') {
    let seen = 0;
    for (;;) {
      Atomics.wait(flags, 0, seen);
      seen = Atomics.load(flags, 0);
      Atomics.add(flags, 1, 1);
      Atomics.notify(flags, 1);
    }
  }
  await new Promise(() => undefined); // postMessage mode: serve until terminated
}

const [engine = 'isolated-vm', callsText = '2000', runsText = '5', workload = 'echo', isolation = 'in-process'] = process.argv.slice(2);
if (engine === 'crossings' || engine === 'hops') {
  await (engine === 'crossings' ? crossings : hops)(Number(callsText));
  process.exit(0);
}
const calls = Number(callsText);
const runs = Number(runsText);
if (engine !== 'isolated-vm' && engine !== 'quickjs')
  throw new Error(`profile-in-process: the engine is isolated-vm, quickjs, crossings or hops (got ${JSON.stringify(engine)})`);
if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(runs) || runs < 1)
  throw new Error(`profile-in-process: calls and runs are positive integers (got ${callsText}, ${runsText})`);
if (workload !== 'echo' && workload !== 'chunk')
  throw new Error(`profile-in-process: the workload is echo or chunk (got ${JSON.stringify(workload)})`);
if (!['in-process', 'thread', 'worker'].includes(isolation))
  throw new Error(`profile-in-process: the isolation is in-process, thread or worker (got ${JSON.stringify(isolation)})`);
const { createSpace, resolveConfig } = await import('agent-spaces');

const root = path.dirname(fileURLToPath(import.meta.url));
const config = resolveConfig(
  {
    capabilities: ['as-tools.mjs'],
    outDir: path.join(root, 'profile-build'),
    std: { fs: { root: path.join(root, 'workspace') } },
    sandbox: { isolation, engine, maxCalls: calls + 10, timeoutMs: 600_000 },
  },
  { root, env: {} },
);
const space = await createSpace({ config });
await space.build();
const program =
  workload === 'echo'
    ? `import { echo } from '@capabilities/bench';\nlet ok = 0;\nfor (let i = 0; i < ${calls}; i++) {\n  const r = await echo({ text: 'm' + i });\n  if (r.text === 'm' + i) ok++;\n}\nexport default ok;`
    : `import { chunk } from '@capabilities/bench';\nlet rows = 0;\nfor (let i = 0; i < ${calls}; i++) {\n  const part = await chunk({ i });\n  if (part.i === i) rows += part.items.length;\n}\nexport default rows;`;
const expected = workload === 'echo' ? calls : calls * CHUNK_ROWS;
const trivial = 'export default 42;';

/** One run: wall ms, process CPU ms (every thread: the isolate's too), and its result. */
async function time(code) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await space.run(code, { check: false });
  if (!result.success) throw new Error(`profile-in-process: the run failed: ${JSON.stringify(result.error)}`);
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000, value: result.result };
}

await time(program); // warm-up
await time(trivial);
const wall = [];
const cpu = [];
for (let run = 0; run < runs; run++) {
  const base = await time(trivial);
  const measured = await time(program);
  if (measured.value !== expected)
    throw new Error(`profile-in-process: wrong result ${JSON.stringify(measured.value)} (expected ${expected})`);
  wall.push(((measured.wall - base.wall) * 1000) / calls);
  cpu.push(((measured.cpu - base.cpu) * 1000) / calls);
}
const line = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted.map((value) => value.toFixed(1)).join(' ')} µs/call, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)}`;
};
console.log(`${engine} ${isolation}, ${calls} sequential ${workload} calls × ${runs} runs: wall ${line(wall)}; process CPU ${line(cpu)}`);
await space.close();

/**
 * isolated-vm's crossings alone, `count` times each, in one fresh isolate (load, 2 cores shared: read
 * the ratios): the host's asynchronous `apply` into an idle isolate whose function calls straight back
 * through an ignored Callback — the two hops of an in-process call, with the time the host thread spends
 * inside `apply` itself (it returns before the isolate runs) — and the reverse protocol, the isolate's
 * `apply` with `{ result: { promise: true } }` of a host function that answers in a microtask.
 */
async function crossings(count) {
  if (!Number.isInteger(count) || count < 1) throw new Error(`profile-in-process: crossings takes a positive count (got ${count})`);
  const { default: ivm } = await import('isolated-vm');
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = isolate.createContextSync();
  let wake = () => undefined;
  context.global.setSync('__back', new ivm.Callback(() => wake(), { ignored: true }));
  context.global.setSync('__host', new ivm.Reference((text) => Promise.resolve().then(() => text)));
  const echo = isolate.compileScriptSync('(function (text) { __back(); })').runSync(context, { reference: true });
  const loop = isolate
    .compileScriptSync(
      `(function (count) {
        const options = { result: { promise: true } };
        (async () => { for (let i = 0; i < count; i++) await __host.apply(undefined, ['m' + i], options); __back(); })();
      })`,
    )
    .runSync(context, { reference: true });
  const perCall = (since, cpuSince) => {
    const used = process.cpuUsage(cpuSince);
    return `${(((performance.now() - since) * 1000) / count).toFixed(1)} µs wall, ${((used.user + used.system) / count).toFixed(1)} µs CPU`;
  };
  for (let round = 0; round < 3; round++) {
    let inApply = 0;
    let cpu = process.cpuUsage();
    let started = performance.now();
    for (let i = 0; i < count; i++) {
      const back = new Promise((resolve) => (wake = resolve));
      const before = performance.now();
      echo.apply(undefined, ['m' + i]).catch(() => undefined);
      inApply += performance.now() - before;
      await back;
    }
    console.log(
      `host apply → isolate → ignored Callback back: ${perCall(started, cpu)} a round trip, ${((inApply * 1000) / count).toFixed(1)} µs of it inside apply`,
    );
    cpu = process.cpuUsage();
    started = performance.now();
    await new Promise((resolve) => {
      wake = resolve;
      loop.applySync(undefined, [count]);
    });
    console.log(`isolate apply (promise result) → host → back: ${perCall(started, cpu)} a round trip`);
  }
  isolate.dispose();
}

/**
 * The hops of a call, `count` times each, no Agent Spaces (the tenth session's probe of issue 30, see
 * bench/README.md): on isolated-vm's threads, (A) a call through an ignored Callback and then the wait for
 * its answer through applySyncPromise, as Agent Spaces does in-process, against (B) one applySyncPromise
 * carrying the call; then a round trip between this thread and a worker thread, by postMessage both ways
 * and by SharedArrayBuffer flags (Atomics.wait there, Atomics.waitAsync here). Run it on an idle and on a
 * busy machine: a sleeping thread's wake-up is most of a hop, and it costs far more on an idle one.
 */
async function hops(calls) {
  if (!Number.isInteger(calls) || calls < 1) throw new Error(`profile-in-process: hops takes a positive count (got ${calls})`);
  const { default: ivm } = await import('isolated-vm');
  const perCall = (started, cpu) => {
    const used = process.cpuUsage(cpu);
    return `${(((performance.now() - started) * 1000) / calls).toFixed(1)} µs wall, ${((used.user + used.system) / calls).toFixed(1)} µs CPU a call`;
  };

  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  const context = isolate.createContextSync();
  let ready = null;
  let waiter = null;
  const start = (id) =>
    void Promise.resolve().then(() => {
      const answer = `[[${id},true,{"text":"m"}]]`;
      if (waiter === null) ready = answer;
      else [waiter, (waiter = null)][0](answer);
    });
  const wait = () => (ready === null ? new Promise((resolve) => (waiter = resolve)) : Promise.resolve([ready, (ready = null)][0]));
  let done = () => undefined;
  context.global.setSync('__send', new ivm.Callback((id) => start(id), { ignored: true }));
  context.global.setSync('__wait', new ivm.Reference(() => wait()));
  context.global.setSync('__sendWait', new ivm.Reference((id) => (start(id), wait())));
  context.global.setSync('__done', new ivm.Callback(() => done(), { ignored: true }));
  const loops = {
    'A: Callback, then applySyncPromise': `(function (n) { for (let i = 0; i < n; i++) { __send(i); JSON.parse(__wait.applySyncPromise(undefined, [])); } __done(); })`,
    'B: one applySyncPromise carrying the call': `(function (n) { for (let i = 0; i < n; i++) JSON.parse(__sendWait.applySyncPromise(undefined, [i])); __done(); })`,
  };
  for (let round = 0; round < 3; round++) {
    for (const [name, source] of Object.entries(loops)) {
      const loop = isolate.compileScriptSync(source).runSync(context, { reference: true });
      const cpu = process.cpuUsage();
      const started = performance.now();
      await new Promise((resolve) => {
        done = resolve;
        loop.apply(undefined, [calls]).catch(resolve);
      });
      console.log(`wait ${name}: ${perCall(started, cpu)}`);
    }
  }
  isolate.dispose();

  for (const mode of ['post', 'atomics']) {
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(new URL(import.meta.url), { workerData: { mode, flags: flags.buffer } });
    await new Promise((resolve) => worker.once('message', resolve));
    for (let round = 0; round < 3; round++) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let index = 0; index < calls; index++) {
        if (mode === 'post') {
          await new Promise((resolve) => {
            worker.once('message', resolve);
            worker.postMessage(index);
          });
        } else {
          const seen = Atomics.load(flags, 1);
          Atomics.add(flags, 0, 1);
          Atomics.notify(flags, 0);
          const waited = Atomics.waitAsync(flags, 1, seen);
          if (waited.async) await waited.value;
        }
      }
      console.log(
        `threads ${mode === 'post' ? 'postMessage both ways' : 'Atomics (waitAsync on the main thread)'}: ${perCall(started, cpu)}`,
      );
    }
    await worker.terminate();
  }
}
