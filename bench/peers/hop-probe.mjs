// Two raw isolated-vm probes behind the tenth session's reading of issue 30 (bench/README.md), no Agent
// Spaces in them. Run from the repository: node --no-node-snapshot bench/peers/hop-probe.mjs [calls]
// - `wait`: a program on isolated-vm's threads makes sequential calls that the host answers a microtask
//   later, (A) as Agent Spaces does in-process — the call through an ignored Callback, then the wait for
//   the answer through applySyncPromise — and (B) the call carried by the wait itself, one crossing.
// - `threads`: a round trip between the main thread and a worker thread, by postMessage both ways, and by
//   SharedArrayBuffer flags (Atomics.wait on the thread, Atomics.waitAsync on the main thread).
/* global process, performance, console, URL */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

if (!isMainThread) {
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
} else {
  const calls = Number(process.argv[2] ?? '20000');
  if (!Number.isInteger(calls) || calls < 1) throw new Error(`hop-probe: calls is a positive whole number (got ${process.argv[2]})`);
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
