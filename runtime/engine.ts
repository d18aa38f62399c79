/**
 * The contract of a sandbox engine: what runs one compiled program in a fresh instance of a JavaScript
 * engine (V8 through isolated-vm, QuickJS in WebAssembly). It imports no engine. An engine is one folder
 * (`isolated-vm/`, `quickjs/`) whose `engine.ts` exports its {@link EngineDefinition} and adds its name
 * to `EngineRegistry` (core/engine-choice.ts), and one entry in `engines.ts`'s list; nothing else imports the folder.
 *
 * Every engine evaluates the same guest code (guest/: console, the host global the capability proxies
 * call, the Web globals) and links `@capabilities/*` to the same build output, so a program sees the
 * same world whichever engine runs it. What differs is only how the host enters the engine and how the
 * engine's limits are enforced; the run's bookkeeping is one run ledger (run-ledger.ts) in every engine.
 */
import type { EngineChoice, EngineName } from '../core/index.js';
import type { ResultMode } from '../core/protocol.js';
import type { LogLevel, RunError } from '../core/run-result.js';
import type { RunLimits } from './sandbox.js';

/**
 * The engines there are, by name: {@link EngineRegistry} lives in core (so the config's type offers the
 * names without importing the runtime); each engine folder's `engine.ts` adds its own
 * (`declare module '../../core/engine-choice.js' { interface EngineRegistry { 'my-engine': true } }`),
 * so this contract names none and the types follow the list in `engines.ts`.
 */
export type { EngineChoice, EngineName, EngineRegistry } from '../core/index.js';

export interface EngineRunRequest {
  runId: string;
  /** The compiled program (an ES module whose default export is the wrapped main). */
  js: string;
  outDir: string;
  limits: RunLimits;
}

/** Where a run's calls and logs go (the host's call gate, or the frames of a sandbox worker). */
export interface EnginePort {
  /** A call the program made; answer it with {@link EngineRun.reply}. */
  call(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void;
  /** A log line that fit the output budget. */
  log(level: LogLevel, message: string): void;
  /**
   * Called each time the program enters the host (a call, a log line, a timer; on QuickJS also at every
   * interrupt check), before that is handled:
   * where a worker whose event loop a program's slice holds can still act (it stops when told to).
   */
  checkIn?(): void;
}

/** How a run ended. The result stays JSON text: whoever needs the value parses it once. */
export interface EngineOutcome {
  success: boolean;
  /** The result's JSON text when `success`. */
  resultJson?: string;
  error?: RunError;
  timedOut: boolean;
  durationMs: number;
}

export interface EngineRun {
  /** The outcome; settles as soon as the run ends, even if the engine has not stopped yet. */
  outcome: Promise<EngineOutcome>;
  /** Settles once the engine no longer executes anything for this run; never, if its thread hangs. */
  released: Promise<void>;
  /** Answers call `id`: `json` is the value's JSON text, or a wire error's when `ok` is false. */
  reply(id: number, ok: boolean, json: string): void;
  /** Ends the run with `CANCELLED`. */
  cancel(message?: string): void;
  /** Ends the run with a failure the host decided (e.g. its own output count). */
  abort(error: RunError): void;
  /** Stops the wall clock (see `CallContext.holdDeadline`); the returned function starts it again. CPU time still counts. */
  holdDeadline(): () => void;
}

/**
 * Where the program executes. `in-process`: in the host's process, which must stay responsive (isolated-vm
 * runs the program on its own threads; QuickJS on the calling thread, each entry bounded by the run's time).
 * `worker`: inside a sandbox worker process that does nothing else (the program runs on its main thread).
 * `thread`: inside a sandbox worker on a `worker_threads` thread of the host's process that does nothing
 * else (the program runs on that thread; the process's Node flags are the host's).
 */
export type EnginePlacement = 'in-process' | 'worker' | 'thread';

/** A loaded engine. */
export interface Engine {
  readonly name: EngineName;
  /** What was loaded (e.g. `isolated-vm 5.0.4` or `quickjs-ng (quickjs-emscripten 0.32.0, sync)`). */
  readonly description: string;
  /** Starts a run; never rejects for faults of the program. `spare` is used when it fits the run. */
  startRun(request: EngineRunRequest, port: EnginePort, spare?: SpareInstance): EngineRun;
  /** A fresh instance made ahead of a run (making one is most of a trivial run's cost). */
  prepare(memoryLimitMb: number): SpareInstance;
}

/** An instance made ahead of a run; it serves at most one run. */
export interface SpareInstance {
  readonly engine: EngineName;
  dispose(): void;
}

/** Why an engine (or one way of loading it) is not usable here, in words a person can act on. */
export interface EngineAttempt {
  /** What was tried (a package name, a build). */
  candidate: string;
  ok: boolean;
  /** The version that loaded, when one did. */
  version?: string;
  /** Why it failed: missing, no binary for this Node ABI, needs a flag, … */
  reason?: string;
}

/** Whether an engine can run here, and why not. */
export interface EngineStatus {
  engine: EngineName;
  available: boolean;
  /** One line: what loaded, or why nothing did. */
  detail: string;
  attempts: EngineAttempt[];
}

/** Why an engine that loads still cannot run in one placement in this process. */
export interface PlacementProblem {
  /** The error code a sandbox asked for this engine and placement is refused with. */
  code: string;
  /** The refusal, saying what to do. */
  message: string;
  /** Why `auto` passes the engine over, in a few words (after the engine's status: `…, but <this>`). */
  autoReason: string;
}

/**
 * An engine describing itself: what its folder's `engine.ts` exports, and what `engines.ts` lists.
 * Loading it for a run (its binding) is deferred to {@link EngineDefinition.load}, so describing an
 * engine loads neither its package nor its guest code.
 */
export interface EngineDefinition<Name extends EngineName = EngineName> {
  readonly name: Name;
  /**
   * Its place in `auto`'s order (lower first): `auto` takes the first engine that loads and can run in
   * the placement. Faster engines come first; one that loads everywhere comes last, as the fallback.
   */
  readonly autoOrder: number;
  /** Whether it can load in this process, which copy, and why each way of loading it failed. */
  status(): EngineStatus | Promise<EngineStatus>;
  /** Why it cannot run in `placement` in this process although it loads (a flag Node lacks), or undefined. */
  placementProblem(placement: EnginePlacement): PlacementProblem | undefined;
  /** The engine, loaded for `placement`; rejects with why it cannot load here. */
  load(placement: EnginePlacement): Promise<Engine>;
  /**
   * What a person can do so that it loads here, when `status` says it does not (`agent-spaces doctor`
   * prints it): which package to install on this Node line, what to reinstall. None when absent.
   */
  remedy?(status: EngineStatus): string[];
}

/** Which engine a sandbox runs, and why (shown by `run -v`, `serve`'s log and `doctor`). */
export interface EngineSelection {
  engine: EngineName;
  /** What was asked for. */
  choice: EngineChoice;
  /** Why this engine: e.g. `auto: isolated-vm 5.0.4 loaded` or `auto: isolated-vm is not available (…)`. */
  reason: string;
}
