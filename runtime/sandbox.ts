/**
 * The sandbox interface: runs one LLM-written TypeScript program in a fresh isolate and reports what
 * happened. Implementations live in `isolated-vm/` (in-process) and `worker-pool/` (sandbox workers).
 */
import type { CapabilityCallHandler } from '../core/protocol.js';
import type { RunLog, RunResult } from '../core/run-result.js';
import type { EngineChoice } from './engine.js';

export interface RunLimits {
  /** Wall-clock time of the whole run, including code after `await`s. */
  timeoutMs: number;
  /** Heap of the isolate. */
  memoryLimitMb: number;
  /** Bytes of logs and result together (UTF-8). */
  maxOutputBytes: number;
  /**
   * Bytes of one call's arguments as JSON (UTF-8). Larger calls reject inside the program with
   * `INVALID_ARGUMENTS`, so a program cannot push huge copies at the host.
   */
  maxArgumentBytes: number;
  /** Capability calls per run; further calls reject with `CALL_LIMIT_EXCEEDED` inside the program. */
  maxCalls: number;
  /** Calls in flight at once; further calls wait in a queue. */
  maxConcurrentCalls: number;
}

export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({
  timeoutMs: 30_000,
  memoryLimitMb: 128,
  maxOutputBytes: 1024 * 1024,
  maxArgumentBytes: 1024 * 1024,
  maxCalls: 1_000,
  maxConcurrentCalls: 100,
});

export interface RunOptions {
  /** Performs each capability call on the host (the bridge's dispatcher). */
  onCall: CapabilityCallHandler;
  /** The engine for this run (default: the sandbox's `engine`). The result's `engine` says which ran, and why. */
  engine?: EngineChoice;
  /** Names the run in call contexts and traces; a random id when omitted. */
  runId?: string;
  /** Aborting ends the run with `CANCELLED`. */
  signal?: AbortSignal;
  limits?: Partial<RunLimits>;
  /**
   * Type-check against the build's declarations. The program starts while the check runs, but none
   * of its calls or log lines reaches the host before the check passed (its calls wait, with the run's
   * wall clock held); on errors it is stopped and the run fails with `TYPE_CHECK_FAILED`, no call made.
   */
  check?: boolean;
  /**
   * Each log line as the program writes it, in order with its calls: a line logged before a call that
   * waits for approval arrives before that approval is asked for. The lines are also in the result.
   */
  onLog?: (log: RunLog) => void;
  /**
   * The modules this run may see (a run narrowed to some functions): "did you mean" hints for a mistyped
   * import name only these. Default: every module of the build.
   */
  visibleModules?: readonly string[];
  /**
   * The functions of visible modules that this run may not call (their export names): the type-check's
   * "Did you mean 'x'?" never suggests one. Default: none.
   */
  hiddenFunctions?: readonly string[];
}

export interface Sandbox {
  /** Runs a program. Resolves for every fault of the program; rejects only for faults of the host. */
  run(code: string, options: RunOptions): Promise<RunResult>;
  /** Stops every worker and isolate; later runs reject. */
  close(): Promise<void>;
}

/** Where a run's isolate lives: a sandbox worker process (the default), a sandbox thread of the host's process, or the host's own thread. */
export const ISOLATIONS = ['worker', 'thread', 'in-process'] as const;
export type Isolation = (typeof ISOLATIONS)[number];

export interface SandboxOptions {
  /** The compiler's build output folder (holds `capabilities/<module>/index.js`). */
  outDir: string;
  /**
   * `worker` (default): isolates live in pooled sandbox processes. `thread`: in pooled sandbox threads of
   * this process (no process hop; the host's process is shared: see runtime/README.md). `in-process`:
   * trusted code, fastest.
   */
  isolation?: Isolation;
  /** Sandbox workers (processes, or threads) to keep ready (worker and thread isolation, default 2). */
  workers?: number;
  /**
   * Programs one worker process runs at once (default 8); runs beyond `workers × runsPerWorker` queue.
   * They share the worker's thread: one that computes delays the others, one stuck in native code
   * costs the worker, and so the runs it holds.
   */
  runsPerWorker?: number;
  /** Defaults for every run; each run may override them. */
  limits?: Partial<RunLimits>;
  /**
   * `auto` (default): isolated-vm when its addon loads here (and, in-process, Node runs with
   * --no-node-snapshot), QuickJS in WebAssembly otherwise. `isolated-vm` or `quickjs`: that engine.
   */
  engine?: EngineChoice;
}
