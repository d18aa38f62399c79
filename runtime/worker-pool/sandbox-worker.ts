/**
 * Entry of a sandbox worker process: runs one program at a time in a fresh isolate and forwards its
 * capability calls to the host over IPC. Exits when the host goes away (IPC channel closed).
 */
import { CAPABILITY_CALL_METHOD, fromWireError } from '../../core/protocol.js';
import type { CapabilityCallHandler, CapabilityCallParams } from '../../core/protocol.js';
import { prepareIsolate, startIsolateRun, type IsolateRun, type PreparedIsolate } from '../isolated-vm/run-in-isolate.js';
import { DEFAULT_RUN_LIMITS } from '../sandbox.js';
import type { HostToWorkerMessage, WorkerToHostMessage } from '../worker-protocol.js';

interface PendingCall {
  params: CapabilityCallParams;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

if (process.send === undefined) {
  process.stderr.write('sandbox-worker must be started by the sandbox worker pool (it needs an IPC channel)\n');
  process.exit(1);
}

const post = (message: WorkerToHostMessage): void => {
  if (process.connected) process.send?.(message);
};
const pendingCalls = new Map<number, PendingCall>();
/** Releases of the current run's deadline holds, by the host's hold id. */
const holds = new Map<number, () => void>();
let nextCallId = 0;
let current: { runId: string; run: IsolateRun } | undefined;
let retiring = false;
/**
 * This process serves one run at a time and nothing else, so the program runs on its main thread:
 * a capability call then costs no thread hop. The host ends a run whose worker does not report
 * shortly after a cancel or the deadline, and kills that worker (see worker-pool.ts).
 */
const THREADING = 'caller';
/** The next run's isolate, made while idle, with the memory limit of the last run. */
let spare: PreparedIsolate | undefined = prepareIsolate(DEFAULT_RUN_LIMITS.memoryLimitMb, THREADING);

function startRun(message: Extract<HostToWorkerMessage, { type: 'run' }>): void {
  const { runId } = message.request;
  const onCall: CapabilityCallHandler = (params) =>
    new Promise((resolve, reject) => {
      const id = ++nextCallId;
      pendingCalls.set(id, { params, resolve, reject });
      post({ type: 'call', runId, request: { jsonrpc: '2.0', id, method: CAPABILITY_CALL_METHOD, params } });
    });
  const run = startIsolateRun(message.request, onCall, spare, THREADING);
  spare = undefined;
  current = { runId, run };
  void run.result.then((result) => {
    // Replies that arrive after the end are dropped: the isolate is gone.
    pendingCalls.clear();
    holds.clear();
    if (!result.timedOut) return post({ type: 'result', runId, result });
    // The deadline cut the program off on this thread, possibly inside native code that isolated-vm
    // cannot always interrupt: this process is replaced rather than trusted with the next run (it
    // never reports itself released, so the pool gives it no other run meanwhile).
    retiring = true;
    if (process.connected) process.send?.({ type: 'result', runId, result } satisfies WorkerToHostMessage, () => process.exit(0));
    else process.exit(0);
  });
  void run.released.then(() => {
    if (retiring) return;
    if (current?.runId === runId) current = undefined;
    spare = prepareIsolate(message.request.limits.memoryLimitMb, THREADING);
    post({ type: 'released', runId });
  });
}

process.on('message', (message: HostToWorkerMessage) => {
  switch (message.type) {
    case 'run':
      startRun(message);
      return;
    case 'cancel':
      if (current?.runId === message.runId) current.run.cancel();
      return;
    case 'hold':
      if (current?.runId === message.runId) holds.set(message.holdId, current.run.holdDeadline());
      return;
    case 'release':
      holds.get(message.holdId)?.();
      holds.delete(message.holdId);
      return;
    case 'call-response': {
      const id = Number(message.response.id);
      const pending = pendingCalls.get(id);
      if (pending === undefined || current?.runId !== message.runId) return;
      pendingCalls.delete(id);
      if ('error' in message.response) pending.reject(fromWireError(message.response.error, { capability: pending.params.capability, function: pending.params.function }));
      else pending.resolve(message.response.result);
      return;
    }
  }
});
process.on('disconnect', () => process.exit(0));
post({ type: 'ready', pid: process.pid });
