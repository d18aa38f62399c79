/**
 * One run's bookkeeping, kept the same way wherever a run is counted: in the engine that runs the
 * program (in-process or in a sandbox worker), and again on the host side of a worker's pipe, which
 * trusts no count of the engine's. It holds the run's clock (its deadline, stopped while a person
 * decides an approval, and the engine's CPU time against the same limit), its output budget, the error
 * codes the run may end with, and the calls the program handed on that have not been answered yet.
 */
import type { WireError } from '../core/protocol.js';
import type { LogLevel, RunError } from '../core/run-result.js';
import { utf8SizeOver } from '../core/utf8-size.js';
import { argumentLimitError, callLimitError, maxQueuedArgumentBytes, nameLimitError, queuedArgumentsError } from './host/call-gate.js';
import { createOutputBudget, errorBytes, logEntryBytes, outputLimitError, type OutputBudget } from './host/output-budget.js';
import {
  BOOTSTRAP_REFUSAL_CODES,
  programMayReport,
  readReportedError,
  WORKER_DECIDED_CODES,
  wireErrorCode,
} from './host/run-error-codes.js';
import type { RunLimits } from './sandbox.js';
import { MAX_NAME } from './worker-protocol.js';

export interface RunLedgerOptions {
  /** Called once when the deadline passes; never while it is held, nor after {@link RunLedger.close}. */
  onDeadline: () => void;
  /** How far past the run's time limit the deadline lies (the host's backstop waits for the engine's own report). */
  deadlineMarginMs?: number;
  /** Told when the deadline becomes held (`true`) and when it runs again (`false`): an engine may watch CPU time meanwhile. */
  onHoldChange?: (held: boolean) => void;
  /**
   * The engine's count of the CPU time the program used, in ms: the run's time limit bounds it as well
   * as the wall clock, held or not (a program waiting for an approval may not compute for free). None
   * on the host side of a pipe: it sees no CPU time.
   */
  cpuUsedMs?: () => number;
}

const LOG_LEVELS: ReadonlySet<string> = new Set<LogLevel>(['log', 'info', 'warn', 'error', 'debug']);

/** A log level the program named (untrusted), as the result takes it: unknown levels are `log`. */
export function knownLogLevel(level: string): LogLevel {
  return LOG_LEVELS.has(level) ? (level as LogLevel) : 'log';
}

/** What becomes of a call the program made (see {@link RunLedger.admitCall}). */
export type CallAdmission =
  /** Hand it on; its answer goes through {@link RunLedger.answerCall}. */
  | { kind: 'admitted' }
  /** Its id is not an integer or is already waiting for an answer: drop it. */
  | { kind: 'dropped' }
  /** Answer it at once with this refusal (it counts as waiting until then). */
  | { kind: 'refused'; error: WireError };

/** What the guest's bootstrap needs to refuse calls itself (fields of its run settings). */
export interface GuestCallLimits {
  maxCalls: number;
  /** A wire error's JSON text with `{capability}` and `{function}` to fill in. */
  callLimitError: string;
  maxArgumentBytes: number;
  /** The same, with `{size}` too. */
  argumentLimitError: string;
}

export class RunLedger {
  readonly limits: RunLimits;
  readonly started = performance.now();
  readonly #options: RunLedgerOptions;
  #deadline: number;
  #timer: NodeJS.Timeout | undefined;
  #holds = 0;
  #heldSince = 0;
  #closed = false;
  readonly #budget: OutputBudget;
  /** Codes of the tool errors answered to the program (and the bootstrap's own refusals, once it started). */
  readonly #sentCodes = new Set<string>();
  /** Calls handed on and not answered yet, with the characters of their arguments. */
  readonly #outstanding = new Map<number, number>();
  #unansweredChars = 0;
  /**
   * What the host holds at most of one run's arguments (waiting calls and calls in flight, in bytes,
   * each character at least one): past it the host refuses calls anyway; refused where the program
   * runs, a thousand 1 MiB calls made in one slice are not queued outside the instance's memory limit.
   */
  readonly #maxUnansweredChars: number;

  constructor(limits: RunLimits, options: RunLedgerOptions) {
    this.limits = limits;
    this.#options = options;
    const ms = limits.timeoutMs + (options.deadlineMarginMs ?? 0);
    this.#deadline = this.started + ms;
    this.#timer = setTimeout(() => this.#expire(), ms);
    this.#budget = createOutputBudget(limits.maxOutputBytes);
    this.#maxUnansweredChars = maxQueuedArgumentBytes(limits) + limits.maxConcurrentCalls * limits.maxArgumentBytes;
  }

  // ------------------------------------------------------------------ clock

  /** The run ended: the clock stops and nothing more is counted. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  get closed(): boolean {
    return this.#closed;
  }

  elapsedMs(): number {
    return performance.now() - this.started;
  }

  /** Milliseconds of CPU time the engine says the program used (0 where no engine counts it). */
  cpuUsedMs(): number {
    return this.#options.cpuUsedMs?.() ?? 0;
  }

  /** Milliseconds of wall clock (held time not counted) or CPU time the run has left, whichever is less. */
  timeLeft(): number {
    const wall = this.wallTimeLeft();
    return this.#options.cpuUsedMs === undefined ? wall : Math.min(wall, this.limits.timeoutMs - this.cpuUsedMs());
  }

  /** The run's failure at its time limit: CPU time when it was held or computed its limit away, wall clock otherwise. */
  timeoutError(): RunError {
    const { timeoutMs } = this.limits;
    const cpuBound = this.held || this.cpuUsedMs() >= timeoutMs;
    return {
      name: 'SandboxTimeoutError',
      code: 'TIMEOUT',
      message: cpuBound
        ? `the program computed for longer than its limit of ${timeoutMs} ms of CPU time and was stopped (time spent waiting for an approval is not counted, computing is); make it do less per run or raise its limit (sandbox.timeoutMs in the config, --timeout of agent-spaces run)`
        : `the program ran longer than its limit of ${timeoutMs} ms and was stopped; make it do less per run or raise its limit (sandbox.timeoutMs in the config, --timeout of agent-spaces run)`,
    };
  }

  /** Whether the deadline is held (a person is deciding an approval). */
  get held(): boolean {
    return this.#holds > 0;
  }

  /** Milliseconds of wall clock left before the deadline, held time not counted (negative once past). */
  wallTimeLeft(): number {
    const now = performance.now();
    return this.#deadline + (this.#holds > 0 ? now - this.#heldSince : 0) - now;
  }

  /**
   * Stops the deadline until the returned function is called (holds nest: it runs again once every
   * hold is released). CPU time is the engine's to count meanwhile.
   */
  hold(): () => void {
    if (this.#closed) return () => undefined;
    if (this.#holds++ === 0) {
      this.#heldSince = performance.now();
      clearTimeout(this.#timer);
      this.#options.onHoldChange?.(true);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holds > 0 || this.#closed) return;
      this.#deadline += performance.now() - this.#heldSince;
      this.#options.onHoldChange?.(false);
      this.#timer = setTimeout(() => this.#expire(), Math.max(1, this.#deadline - performance.now()));
    };
  }

  #expire(): void {
    if (!this.#closed && this.#holds === 0) this.#options.onDeadline();
  }

  // ------------------------------------------------------------------ output

  /** Counts a log line as its entry in the result takes it; false (nothing counted) when it does not fit. */
  takeLog(level: LogLevel, message: string): boolean {
    return this.#budget.take(logEntryBytes(level, message));
  }

  /** Counts an error the run ends with, its stack included; false when it does not fit. */
  takeError(error: RunError): boolean {
    return this.#budget.take(errorBytes(error));
  }

  /** The error a program ends with, counted: `error` itself when it fits, the output limit's failure otherwise. */
  endWithError(error: RunError): RunError {
    return this.takeError(error) ? error : this.outputLimit(`the program's error (${errorBytes(error)} bytes with its stack)`);
  }

  /**
   * The output limit's failure when a result's JSON text does not fit in what is left, else undefined.
   * The result is the last output: it needs only to fit, and nothing is counted after it.
   */
  resultOverLimit(json: string): RunError | undefined {
    const bytes = utf8SizeOver(json, this.outputLeft);
    return bytes === undefined ? undefined : this.outputLimit(`the result (${bytes} bytes of JSON)`);
  }

  /** Counts `bytes` of output (a result as it crossed the pipe); false when they do not fit. */
  takeBytes(bytes: number): boolean {
    return this.#budget.take(bytes);
  }

  /** Output bytes the run has left (a result, the last output, needs only to fit in them). */
  get outputLeft(): number {
    return this.#budget.max - this.#budget.used;
  }

  /** The run's failure when `what` passed its output limit. */
  outputLimit(what: string): RunError {
    return outputLimitError(what, this.limits.maxOutputBytes);
  }

  // ------------------------------------------------------------------ error codes

  /**
   * The limits the guest's bootstrap enforces itself (calls past `maxCalls`, arguments past
   * `maxArgumentBytes` counted in characters), with the host's own messages as templates for its refusals.
   */
  guestCallLimits(): GuestCallLimits {
    const { maxCalls, maxArgumentBytes } = this.limits;
    return {
      maxCalls,
      callLimitError: JSON.stringify(callLimitError('{capability}', '{function}', maxCalls)),
      maxArgumentBytes,
      argumentLimitError: JSON.stringify(argumentLimitError('{capability}', '{function}', 'at least {size}', maxArgumentBytes)),
    };
  }

  /** The program started: it may now end with the codes the bootstrap gives the calls it refuses itself. */
  programStarted(): void {
    for (const code of BOOTSTRAP_REFUSAL_CODES) this.#sentCodes.add(code);
  }

  /** An answer to one of the program's calls went out: a tool error's code becomes one the program may end with. */
  noteAnswer(ok: boolean, json: string): void {
    if (ok) return;
    const code = wireErrorCode(json);
    if (code !== undefined) this.#sentCodes.add(code);
  }

  /** The error a program reported (untrusted JSON text), with a code only if the program may say it. */
  readProgramError(json: string): RunError {
    return readReportedError(json, programMayReport(this.#sentCodes));
  }

  /** The error a sandbox worker reported for the run (untrusted): codes its runtime decides, or that the host sent. */
  readWorkerError(json: string): RunError {
    return readReportedError(json, (code) => WORKER_DECIDED_CODES.has(code) || this.#sentCodes.has(code));
  }

  // ------------------------------------------------------------------ calls

  /**
   * Records a call the program made. Refused at once: past the argument characters the run may have
   * unanswered, a capability or function name longer than a frame's header takes (the host would kill
   * the worker for it, with every run in it), or arguments over `maxArgumentBytes` in UTF-8 (the program
   * measured characters; refused here, the bytes never reach the pipe).
   */
  admitCall(id: number, capability: string, fn: string, argsJson: string): CallAdmission {
    if (this.#closed || !Number.isSafeInteger(id) || this.#outstanding.has(id)) return { kind: 'dropped' };
    this.#outstanding.set(id, argsJson.length);
    this.#unansweredChars += argsJson.length;
    if (this.#unansweredChars > this.#maxUnansweredChars) {
      const waiting = `${this.#unansweredChars - argsJson.length} characters of arguments in calls not answered yet`;
      return { kind: 'refused', error: queuedArgumentsError(capability, fn, waiting, this.#maxUnansweredChars) };
    }
    const name = [capability, fn].find((text) => text.length > MAX_NAME);
    if (name !== undefined) return { kind: 'refused', error: nameLimitError(name.length, MAX_NAME) };
    const bytes = utf8SizeOver(argsJson, this.limits.maxArgumentBytes);
    if (bytes !== undefined) return { kind: 'refused', error: argumentLimitError(capability, fn, bytes, this.limits.maxArgumentBytes) };
    return { kind: 'admitted' };
  }

  /** Call `id` is answered (`json`: the value's JSON text, or a wire error's); false when it was not waiting (drop the answer). */
  answerCall(id: number, ok: boolean, json: string): boolean {
    const chars = this.#outstanding.get(id);
    if (this.#closed || chars === undefined) return false;
    this.#outstanding.delete(id);
    this.#unansweredChars -= chars;
    this.noteAnswer(ok, json);
    return true;
  }

  /** Calls handed on and not answered yet. */
  get unansweredCalls(): number {
    return this.#outstanding.size;
  }
}
