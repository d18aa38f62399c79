/**
 * A fresh isolate with its context and the guest code evaluated in it, made before a run arrives, and
 * what keeps a process from hanging at exit on an isolate still executing on isolated-vm's threads.
 */
import type ivm from 'isolated-vm';
import type { ResultMode } from '../../core/protocol.js';
import type { SpareInstance } from '../engine.js';
import { FIRST_USE_SOURCE } from '../guest/generated/guest-code.js';
import { sandboxUrlOperation } from '../host/sandbox-url-host.js';
import { evaluateBootstrap } from './bootstrap-script.js';
import { loadIsolatedVm } from './load-isolated-vm.js';

/** What the isolate's callbacks call; bound to a run by {@link PreparedIsolate.bind}. */
export interface IsolateHandlers {
  send(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void;
  writeLog(level: string, message: string): boolean;
  complete(ok: boolean, json: string): void;
  /** Arms (`start`) or clears timer `id` of the program; numbers only. */
  timer(start: boolean, id: number, delayMs: number, repeat: boolean): void;
  /**
   * On isolated-vm's threads only: the isolate waits, its thread blocked, for the next replies (a batch
   * as `deliver` takes it), or '' when none came within a moment, a timer is due or the run ended.
   */
  awaitReplies(): Promise<string>;
}

/**
 * A fresh isolate with its context and bootstrap, made before a run arrives (creating them is most
 * of a trivial run's cost). Each one serves exactly one run.
 */
export interface PreparedIsolate extends SpareInstance {
  readonly engine: 'isolated-vm';
  readonly memoryLimitMb: number;
  /** Whether the program runs on the calling thread (see {@link IsolateThreading}). */
  readonly threading: IsolateThreading;
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  /** Settles calls: takes a JSON array of `[id, ok, payload]` triples. */
  readonly deliver: ivm.Reference<(batch: string) => void>;
  readonly run: ivm.Reference<(main: unknown, settings: unknown) => void>;
  /** Runs timer `id`; returns the delay to arm it again with (an interval) or -1. */
  readonly wake: ivm.Reference<(id: number) => number>;
  /** Connects the isolate's callbacks to a run; before that they do nothing. */
  bind(handlers: IsolateHandlers): void;
}

/**
 * Where the program executes. `'pool'`: on isolated-vm's threads, so the caller's event loop stays
 * free while the program computes (every call then costs two thread hops). `'caller'`: on the
 * calling thread, synchronously, each slice bounded by the run's remaining time (a call costs no
 * thread hop, but the caller's event loop waits while the program computes) — for a process that
 * does nothing else, such as a sandbox worker.
 */
export type IsolateThreading = 'pool' | 'caller';

// Made in the context before any program code runs, so nothing it uses can be replaced: the reference's
// applySyncPromise and Reflect.apply are taken now, and the arguments' array is made here.
const AWAIT_REPLIES = `(function (reference) {
  'use strict';
  const applySyncPromise = reference.applySyncPromise, reflectApply = Reflect.apply;
  return function awaitReplies() {
    return reflectApply(applySyncPromise, reference, [undefined, []]);
  };
})`;

/** The guest's `awaitReplies` on isolated-vm's threads: blocks the isolate's thread until `reference`'s promise settles. */
function awaitRepliesFunction(isolate: ivm.Isolate, context: ivm.Context, reference: ivm.Reference): ivm.Transferable {
  const script = isolate.compileScriptSync(AWAIT_REPLIES);
  const make = script.runSync(context, { reference: true }) as ivm.Reference<(reference: ivm.Reference) => unknown>;
  const wait = make.applySync(undefined, [reference], { result: { reference: true } }) as ivm.Reference;
  make.release();
  script.release();
  return wait.derefInto({ release: true });
}

/** Isolates of runs in progress on isolated-vm's threads (see {@link disposeAtExit}). */
const runningOnThreads = new Set<ivm.Isolate>();
let exitHookInstalled = false;

/**
 * At exit, isolated-vm joins its threads: one still executing a program (a run in the background, a
 * loop) would keep the process from ever ending. Disposing the isolates of the runs in progress stops
 * them. A thread waiting in one of the isolate's synchronous callbacks (a log line, a timer, URL
 * parsing) is not released by this; the end of a run is therefore handed to the host outside them (see
 * `#toHost` of IsolatedVmRun in run-in-isolate.ts).
 */
export function disposeAtExit(isolate: ivm.Isolate): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const running of runningOnThreads) if (!running.isDisposed) running.dispose();
    });
  }
  runningOnThreads.add(isolate);
}

/** Forgets an isolate {@link disposeAtExit} was told of (its run has ended). */
export function forgetAtExit(isolate: ivm.Isolate): void {
  runningOnThreads.delete(isolate);
}

export function prepareIsolate(memoryLimitMb: number, threading: IsolateThreading = 'pool'): PreparedIsolate {
  const ivm = loadIsolatedVm();
  const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb });
  let handlers: IsolateHandlers | undefined;
  const context = isolate.createContextSync();
  const send = (...args: Parameters<IsolateHandlers['send']>): void => handlers?.send(...args);
  const complete = (ok: boolean, json: string): void => handlers?.complete(ok, json);
  const callbacks = [
    // On the pool, not waited for by the isolate: a call costs one thread hop less. On the caller's
    // thread, a plain call: the host records it before the isolate goes on.
    threading === 'pool' ? new ivm.Callback(send, { ignored: true }) : new ivm.Callback(send),
    new ivm.Callback((level: string, message: string) => handlers?.writeLog(level, message) ?? false),
    // Its answer is not used: on the pool it does not hold an isolate thread while the host reads it.
    threading === 'pool' ? new ivm.Callback(complete, { ignored: true }) : new ivm.Callback(complete),
    // Synchronous in both threadings: the host knows a timer before the isolate goes on, so the
    // deadlock check never misses one.
    new ivm.Callback((start: boolean, id: number, delayMs: number, repeat: boolean) => handlers?.timer(start, id, delayMs, repeat)),
    // Strings in, one string out (see sandbox-url-host.ts); it needs no run.
    new ivm.Callback(sandboxUrlOperation),
    // The Web globals' code, copied in when a program first reads one of them.
    new ivm.Callback(() => FIRST_USE_SOURCE),
    // No `jsonStack`: V8's JSON.stringify stops deep data itself (a RangeError the program can catch).
    undefined,
    // On the pool only: the isolate's thread may wait there for replies (the caller's thread must not).
    // The run decides when it may (IsolatedVmRun #mayWaitInDelivery: only while the wall clock is what
    // limits it, as isolated-vm counts a delivery's limit on the wall clock).
    ...(threading === 'pool' ? [awaitRepliesFunction(isolate, context, new ivm.Reference(() => handlers?.awaitReplies() ?? ''))] : []),
  ];
  const bootstrap = evaluateBootstrap(isolate, context, callbacks);
  return {
    engine: 'isolated-vm',
    dispose: () => {
      if (!isolate.isDisposed) isolate.dispose();
    },
    memoryLimitMb,
    threading,
    isolate,
    context,
    deliver: bootstrap.getSync('deliver', { reference: true }),
    run: bootstrap.getSync('run', { reference: true }),
    wake: bootstrap.getSync('wake', { reference: true }),
    bind(next) {
      handlers = next;
    },
  };
}
