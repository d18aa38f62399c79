// A sandbox worker on a thread that lies about the thread's own channel (runtime/worker-pool/thread-frames.ts):
// the shared counter of what it took, messages that carry what is not text (shared memory, a port), a
// sparse list, results for runs it was never sent. Started by the pool as a thread (workerData.sandboxThread);
// a run whose program text is `lying` misbehaves as argv[2] says, other runs (and those of the thread
// that replaces it) are answered 1.
/* global process */
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';

const mode = process.argv[2];
const taken = new Int32Array(workerData.taken);
const frame = (header, body = '') => parentPort.postMessage([JSON.stringify(header), body]);

parentPort.on('message', (message) => {
  for (let index = 0; index < message.length; index += 2) {
    // Counts what it took, except in the modes that lie about it.
    if (mode !== 'counter-behind') Atomics.add(taken, 0, message[index].length + message[index + 1].length);
    const header = JSON.parse(message[index]);
    if (header.t === 'run') onRun(header.runId, message[index + 1]);
  }
});

function answer(runId, value) {
  frame({ t: 'result', runId, ok: true, timedOut: false }, JSON.stringify(value));
  frame({ t: 'released', runId });
}

function onRun(runId, js) {
  if (js !== 'lying') return answer(runId, 1);
  switch (mode) {
    case 'counter-behind':
      // Says it took nothing and far less than nothing: the host believes 2 GiB wait unread on its port.
      Atomics.store(taken, 0, -0x7fffffff);
      for (let id = 1; id <= 200; id++) frame({ t: 'call', runId, id, capability: 'math', fn: 'echo', mode: 'value' }, '{"value":1}');
      return;
    case 'shared-memory':
      // A frame whose body is shared memory the thread keeps writing to.
      return parentPort.postMessage([JSON.stringify({ t: 'result', runId, ok: true, timedOut: false }), new SharedArrayBuffer(16)]);
    case 'port': {
      // A frame whose body is a port to the thread.
      const { port1 } = new MessageChannel();
      return parentPort.postMessage([JSON.stringify({ t: 'result', runId, ok: true, timedOut: false }), port1], [port1]);
    }
    case 'sparse':
      // A list of a billion frames, all holes.
      return parentPort.postMessage(new Array(1_000_000_000));
    case 'numbers':
      return parentPort.postMessage([1, 2]);
    case 'unknown-run':
      // Results and calls for runs it was never sent, then its own result.
      answer('never-sent', 'forged');
      frame({ t: 'call', runId: 'never-sent', id: 1, capability: 'math', fn: 'add', mode: 'value' }, '{"a":1,"b":2}');
      return answer(runId, 'mine');
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

frame({ t: 'ready', pid: process.pid });
