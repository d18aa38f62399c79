import { randomUUID } from 'node:crypto';
import type { ApprovalRequest, BridgeEvent, RunLog, RunResult } from '../core/index.js';
import type { Sealer } from './sealed-state.js';

const STATE_PURPOSE = 'approval-round';

/** How long a run waits for the client to come back with its approvals, by default. */
export const DEFAULT_APPROVAL_WAIT_MS = 10 * 60 * 1000;
/** Runs waiting for approval at once, by default; more are refused. */
export const DEFAULT_MAX_WAITING_RUNS = 64;

/**
 * How one approval was answered, with why: what a client (an elicitation result), a store or this
 * server decided. A narrower form of core's `ApprovalDecision` (an approval handler's return value,
 * which may also be a bare boolean or carry content).
 */
export interface ApprovalAnswer {
  approved: boolean;
  reason?: string;
}

/** Where a run's progress goes while a request is attached to it. */
export interface RunProgress {
  log(log: RunLog): void;
  callEnded(event: BridgeEvent): void;
}

/** One call of a run waiting for the client's decision. */
export interface WaitingApproval {
  callId: string;
  request: ApprovalRequest;
}

/** What a round of a run ends with: the run's result, or the approvals it waits for and the sealed state to resume it. */
export type RoundOutcome = { kind: 'done'; result: RunResult } | { kind: 'input'; waiting: WaitingApproval[]; requestState: string };

interface SealedRound {
  run: string;
  calls: string[];
  nonce: string;
  exp: number;
}

interface ParkedRun {
  id: string;
  controller: AbortController;
  result?: RunResult;
  failure?: unknown;
  waiting: Map<string, WaitingApproval & { decide(decision: ApprovalAnswer): void }>;
  /** The nonce the next retry must carry; replaced as soon as one is accepted, so a state opens once. */
  nonce: string;
  /** Wakes a round waiting for the run to end or ask. */
  wake?: () => void;
  /** While a request is attached: where its progress goes. */
  progress?: RunProgress;
  expiry?: NodeJS.Timeout;
}

/**
 * Approvals for clients of the 2026-07-28 protocol, which cannot be sent requests: a run's calls that
 * need approval make the `tools/call` return `input_required` (every approval waiting at that moment),
 * with a sealed `requestState` naming the run, its waiting calls, an expiry and a one-time nonce. The run
 * keeps waiting in this process; the client's retry carries the answers and the state, and the same run
 * goes on — nothing runs twice. A run nobody comes back for is cancelled when its state expires.
 */
export class ApprovalRounds {
  readonly #runs = new Map<string, ParkedRun>();
  readonly #sealer: Sealer;
  readonly #waitMs: number;
  readonly #maxRuns: number;

  constructor(sealer: Sealer, options: { waitMs?: number; maxRuns?: number } = {}) {
    this.#sealer = sealer;
    this.#waitMs = options.waitMs ?? DEFAULT_APPROVAL_WAIT_MS;
    this.#maxRuns = options.maxRuns ?? DEFAULT_MAX_WAITING_RUNS;
  }

  /** Starts a run whose approvals go through rounds; refuses (with a message) when too many runs are open. */
  start(runId: string, execute: (signal: AbortSignal) => Promise<RunResult>): string | undefined {
    if (this.#runs.size >= this.#maxRuns) {
      return `too many runs are open or waiting for approval on this server (at most ${this.#maxRuns}); answer or abandon the waiting ones, or retry later`;
    }
    const run: ParkedRun = { id: runId, controller: new AbortController(), waiting: new Map(), nonce: randomUUID() };
    this.#runs.set(runId, run);
    execute(run.controller.signal).then(
      (result) => this.#settle(run, { result }),
      (failure: unknown) => this.#settle(run, { failure }),
    );
    return undefined;
  }

  /** The approval handler for runs of these rounds: the call waits until a retry decides it, or the run expires. */
  approve(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const run = request.runId ? this.#runs.get(request.runId) : undefined;
    if (!run) return Promise.resolve({ approved: false, reason: 'the run is no longer waiting for its client' });
    const callId = request.callId ?? randomUUID();
    return new Promise<ApprovalAnswer>((resolve) => {
      run.waiting.set(callId, { callId, request, decide: resolve });
      run.wake?.();
    });
  }

  /**
   * Waits for the run to end or to ask for approvals, with `signal` (the request's) cancelling the run
   * and `progress` receiving its progress meanwhile. Approvals that arrive close together (parallel
   * calls) are collected into one round.
   */
  async next(runId: string, signal: AbortSignal, progress?: RunProgress): Promise<RoundOutcome> {
    const run = this.#runs.get(runId);
    if (!run) throw new Error(`run ${runId} is not open`);
    clearTimeout(run.expiry);
    const cancel = (): void => run.controller.abort(signal.reason);
    signal.addEventListener('abort', cancel, { once: true });
    if (signal.aborted) cancel();
    run.progress = progress;
    try {
      while (run.result === undefined && run.failure === undefined && run.waiting.size === 0) {
        await new Promise<void>((resolve) => (run.wake = resolve));
      }
      if (run.result === undefined && run.failure === undefined) await this.#collect(run);
    } finally {
      run.wake = undefined;
      run.progress = undefined;
      signal.removeEventListener('abort', cancel);
    }
    if (run.failure !== undefined) {
      this.#runs.delete(runId);
      throw run.failure;
    }
    if (run.result !== undefined) {
      this.#runs.delete(runId);
      return { kind: 'done', result: run.result };
    }
    const waiting = [...run.waiting.values()].map(({ callId, request }) => ({ callId, request }));
    const exp = Date.now() + this.#waitMs;
    const requestState = this.#sealer.seal(STATE_PURPOSE, {
      run: run.id,
      calls: waiting.map((entry) => entry.callId),
      nonce: run.nonce,
      exp,
    } satisfies SealedRound);
    run.expiry = setTimeout(() => this.#expire(run), this.#waitMs);
    run.expiry.unref();
    return { kind: 'input', waiting, requestState };
  }

  /**
   * Opens a retry's `requestState` and applies its answers (`answer(callId)` says what the client
   * decided for a call, `undefined` when it did not answer it: the call keeps waiting and is asked again).
   * Returns the run to go on with, or why the state is refused.
   */
  resume(requestState: string, answer: (callId: string) => ApprovalAnswer | undefined): { runId: string } | { refused: string } {
    const state = this.#sealer.open(STATE_PURPOSE, requestState) as SealedRound | undefined;
    if (
      !state ||
      typeof state.run !== 'string' ||
      !Array.isArray(state.calls) ||
      typeof state.nonce !== 'string' ||
      typeof state.exp !== 'number'
    ) {
      return {
        refused:
          'the requestState was not sealed by this server (it was altered or forged, or the server restarted with another key); call execute_code again',
      };
    }
    if (Date.now() > state.exp)
      return {
        refused: 'the requestState expired: the run stopped waiting for these approvals and was cancelled; call execute_code again',
      };
    const run = this.#runs.get(state.run);
    if (!run) {
      return {
        refused:
          'the run this requestState belongs to is not waiting here (it ended, expired or was cancelled, or it waits in another server process); call execute_code again',
      };
    }
    if (state.nonce !== run.nonce)
      return {
        refused:
          'the requestState was already used (a replay): each input_required round is answered once; retry with the newest requestState',
      };
    run.nonce = randomUUID();
    for (const callId of state.calls) {
      const waiting = run.waiting.get(callId);
      const decision = waiting ? answer(callId) : undefined;
      if (!waiting || !decision) continue;
      run.waiting.delete(callId);
      waiting.decide(decision);
    }
    return { runId: run.id };
  }

  /** Where progress of a run goes now: the request attached to it, if any. */
  progressOf(runId: string): RunProgress | undefined {
    return this.#runs.get(runId)?.progress;
  }

  /** Cancels every open run (the server is closing). */
  close(): void {
    for (const run of this.#runs.values()) this.#expire(run, 'the server closed');
  }

  #settle(run: ParkedRun, outcome: { result: RunResult } | { failure: unknown }): void {
    if ('result' in outcome) run.result = outcome.result;
    else run.failure = outcome.failure ?? new Error('the run failed');
    // A run that ends between rounds keeps its result for the retry until its state expires.
    run.wake?.();
  }

  #expire(run: ParkedRun, why = `no retry came within ${Math.round(this.#waitMs / 1000)} s`): void {
    this.#runs.delete(run.id);
    for (const waiting of run.waiting.values()) waiting.decide({ approved: false, reason: `not answered: ${why}` });
    run.waiting.clear();
    run.controller.abort(new Error(`run cancelled: ${why}`));
  }

  /** Lets parallel calls that are on their way to approval join this round (a few turns of the event loop, then quiet). */
  async #collect(run: ParkedRun): Promise<void> {
    for (let turn = 0; turn < 8; turn++) {
      const before = run.waiting.size;
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (run.result !== undefined || run.failure !== undefined || run.waiting.size === before) return;
    }
  }
}
