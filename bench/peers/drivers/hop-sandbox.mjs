// The far side of the hop floors (hop-floor.mjs): raw isolated-vm or bare QuickJS, no framework, in a
// child process (frames on fd 3, a socketpair its parent opened with stdio 'pipe') or on a worker thread of
// the driver's process (frames as pairs of strings over the thread's port). For each 'run' frame a fresh
// isolate (128 MB) or QuickJS runtime (quickjs-run.mjs) runs the program; its tools are `__call(name,
// argsJson)`, whose promise a 'reply' frame of the host settles (the program's calls never block it, so
// parallel ones overlap). The result leaves as the JSON text the program's engine made.
/* global process */
import net from 'node:net';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { importFrom } from './common.mjs';
import { frameReader, writeFrame } from './hop-frames.mjs';
import { loadQuickJs, runInQuickJs } from './quickjs-run.mjs';

const onThread = !isMainThread;
const options = onThread ? workerData : JSON.parse(process.argv[2] ?? '{}');
const onQuickJs = options.engine === 'quickjs';
let ivm;
let QuickJS;
if (onQuickJs) QuickJS = await loadQuickJs();
else {
  const loaded = options.ivmPrefix ? await importFrom(options.ivmPrefix, 'isolated-vm') : await import('isolated-vm');
  ivm = loaded.default ?? loaded;
}

let send;
if (onThread) {
  send = (header, body = '') => parentPort.postMessage([header, body]);
  parentPort.on('message', ([header, body]) => onFrame(header, body));
} else {
  const socket = new net.Socket({ fd: 3, readable: true, writable: true });
  send = (header, body = '') => writeFrame(socket, header, body);
  socket.on('data', frameReader(onFrame));
  socket.on('end', () => process.exit(0));
  socket.on('error', () => process.exit(1));
}

/** Runs in progress: run id → its calls waiting for the host's reply, by call id. */
const runs = new Map();

function onFrame(headerText, body) {
  const header = JSON.parse(headerText);
  if (header.t === 'run') void start(header.run, header.uses, body);
  else if (header.t === 'reply') {
    const calls = runs.get(header.run);
    const call = calls?.get(header.id);
    if (call === undefined) return;
    calls.delete(header.id);
    if (header.ok) call.resolve(body);
    else call.reject(new Error(body));
  }
}

/** Runs a program: for isolated-vm its code as the host compiled it, for QuickJS its body and tools. */
async function start(run, uses, code) {
  const calls = new Map();
  runs.set(run, calls);
  let nextId = 0;
  const call = (name, args) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      calls.set(id, { resolve, reject });
      send(JSON.stringify({ t: 'call', run, id, name }), args);
    });
  try {
    const json = onQuickJs ? await runInQuickJs(QuickJS, code, uses, call) : await runInIsolate(code, call);
    send(JSON.stringify({ t: 'done', run, ok: true }), json);
  } catch (error) {
    send(JSON.stringify({ t: 'done', run, ok: false }), error instanceof Error ? error.message : String(error));
  } finally {
    runs.delete(run);
  }
}

async function runInIsolate(code, call) {
  const isolate = new ivm.Isolate({ memoryLimit: 128 });
  try {
    const context = await isolate.createContext();
    await context.global.set('__call', new ivm.Reference(call));
    const script = await isolate.compileScript(code);
    return await script.run(context, { promise: true, timeout: 120_000 });
  } finally {
    isolate.dispose();
  }
}

const engine = onQuickJs ? 'bare quickjs-emscripten (quickjs-ng sync build)' : `isolated-vm ${ivm.Isolate ? 'loaded' : '?'}`;
send(JSON.stringify({ t: 'ready', info: `${engine} on Node ${process.version}` }));
