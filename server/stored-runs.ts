import { randomUUID } from 'node:crypto';
import { errorMessage, type RunLog, type RunResult } from '../core/index.js';
import { describeStore, DurableError, type ServeStore, type StoredApproval } from '../store/index.js';
import type { ApprovalAnswer } from './approval-rounds.js';
import type { Sealer } from './sealed-state.js';

const STATE_PURPOSE = 'stored-approval-round';
/** After an approval shows up, how long to wait for more of the same run (parallel calls) before answering the round. */
const COLLECT_QUIET_MS = 60;
const COLLECT_MAX_MS = 500;

/** Where a stored run's progress goes while a request follows it. */
export interface StoredRunHooks {
  /** The request's: when it ends, this process stops following the run (the run goes on in the store). */
  signal: AbortSignal;
  onLog(log: RunLog): void;
  /** Something the caller should know while it waits (the run is queued and no worker is alive). */
  onNotice(message: string): void;
  /** The run's session-state scope (`@capabilities/session`): the request's MCP session. */
  session?: string;
}

/** What a round of a stored run ends with: its result, the approvals it waits for (and the sealed state to go on), or why it cannot start or go on. */
export type StoredRoundOutcome =
  | { kind: 'done'; result: RunResult }
  | { kind: 'input'; waiting: StoredApproval[]; requestState: string }
  | { kind: 'refused'; message: string };

interface SealedStoredRound {
  run: string;
  approvals: string[];
  /** The last event of the run this round relayed: the next round goes on after it. */
  seq: number;
  exp: number;
}

/**
 * `execute_code` with a store: the program is submitted to the store's queue and a worker runs it;
 * this process follows its events (logs as progress, then the result). Its approvals wait in the store,
 * so whoever reaches the store decides them: a 2026-07-28 client through `input_required` rounds whose
 * sealed state names the run and its stored approvals (the retry may reach any replica sharing the
 * state key: it decides the approvals in the store and attaches to the run by id), a 2025-11-25 client
 * by elicitation on the request's own stream, `agent-spaces approvals`, or a studio on the same store.
 */
export class StoredRuns {
  readonly #store: ServeStore;
  readonly #sealer: Sealer;
  readonly #waitMs: number;

  constructor(store: ServeStore, sealer: Sealer, options: { waitMs: number }) {
    this.#store = store;
    this.#sealer = sealer;
    this.#waitMs = options.waitMs;
  }

  /**
   * Runs the program to its end. `ask` (a 2025-11-25 session that can elicit) is asked for each
   * approval while the run waits; whoever decides first in the store wins, and a question decided
   * elsewhere meanwhile is withdrawn. Without `ask`, approvals wait for a decision in the store.
   */
  /** The result a finished stored run ended with (run id included, as `follow` gave it); undefined while it runs, or once pruned. */
  runResult(runId: string): Promise<(RunResult & { runId: string }) | undefined> {
    return this.#store.runResult(runId);
  }

  async follow(
    code: string,
    hooks: StoredRunHooks & { ask?: (approval: StoredApproval, signal: AbortSignal) => Promise<ApprovalAnswer | undefined> },
  ): Promise<RunResult | { refused: string }> {
    const runId = randomUUID();
    const asking = new Map<string, AbortController>();
    try {
      return await this.#store.submitRun({
        code,
        runId,
        onlyWithLiveWorker: true,
        ...(hooks.session ? { session: hooks.session } : {}),
        signal: hooks.signal,
        onNoWorker: () => hooks.onNotice(this.#queuedWithoutWorker(runId)),
        onEvent: (event) => {
          if (event.kind === 'log') hooks.onLog(event.log);
          else if (event.kind === 'approval-decided') asking.get(event.approvalId)?.abort();
          else if (event.kind === 'approval-required' && hooks.ask && !asking.has(event.approvalId)) {
            const question = new AbortController();
            asking.set(event.approvalId, question);
            void this.#ask(runId, event.approvalId, hooks.ask, AbortSignal.any([question.signal, hooks.signal]))
              .catch((error: unknown) =>
                hooks.onNotice(
                  `approval ${event.approvalId}: the answer could not be stored (${errorMessage(error)}); decide it with agent-spaces approvals`,
                ),
              )
              .finally(() => asking.delete(event.approvalId));
          }
        },
      });
    } catch (error) {
      if (noLiveWorker(error)) return { refused: this.#refusedWithoutWorker() };
      if (hooks.signal.aborted)
        return { refused: `the request ended; run ${runId} goes on in the store ${describeStore(this.#store.url)}` };
      throw error;
    } finally {
      for (const question of asking.values()) question.abort();
    }
  }

  /**
   * One round of a 2026-07-28 request: starts the run (no `requestState`) or goes on with it (the retry:
   * `answer(approvalId)` is the client's decision for each approval the state names, stored before the
   * run is followed again). Ends with the result, or with the approvals the run waits for now.
   */
  async round(
    code: string,
    requestState: unknown,
    answer: (approvalId: string) => ApprovalAnswer | undefined,
    hooks: StoredRunHooks,
  ): Promise<StoredRoundOutcome> {
    let runId: string;
    let afterSeq = 0;
    if (requestState === undefined) {
      runId = randomUUID();
    } else {
      const state = this.#open(requestState);
      if ('refused' in state) return { kind: 'refused', message: state.refused };
      // A run that asked for approval has events; none means retention deleted it: following its id
      // again would enqueue the program anew and perform its calls a second time.
      if (!(await this.#store.hasEvents(state.run)))
        return { kind: 'refused', message: `run ${state.run} is no longer in the store (deleted by retention); run the program again` };
      for (const approvalId of state.approvals) {
        const decision = answer(approvalId);
        // A replayed state cannot change a decision: the first one stands.
        if (decision) await this.#store.decide(state.run, approvalId, decision);
      }
      runId = state.run;
      afterSeq = state.seq;
    }
    return this.#followRound(code, runId, afterSeq, requestState !== undefined, hooks);
  }

  /** Follows the run until it ends or waits for approvals (then stops following: the run waits in the store). */
  #followRound(code: string, runId: string, afterSeq: number, resumed: boolean, hooks: StoredRunHooks): Promise<StoredRoundOutcome> {
    const following = new AbortController();
    const stopFollowing = (): void => following.abort();
    hooks.signal.addEventListener('abort', stopFollowing, { once: true });
    if (hooks.signal.aborted) stopFollowing();
    let lastSeq = afterSeq;
    let stopped = false;
    return new Promise<StoredRoundOutcome>((resolve, reject) => {
      let collecting: NodeJS.Timeout | undefined;
      let collectStarted = 0;
      const lookForApprovals = async (): Promise<void> => {
        collecting = undefined;
        if (stopped) return;
        const waiting = await this.#store.pendingApprovals(runId);
        if (waiting.length === 0 || stopped) return;
        stopped = true;
        following.abort();
        await run.catch(() => undefined);
        const state: SealedStoredRound = {
          run: runId,
          approvals: waiting.map((approval) => approval.id),
          seq: lastSeq,
          exp: Date.now() + this.#waitMs,
        };
        resolve({ kind: 'input', waiting, requestState: this.#sealer.seal(STATE_PURPOSE, state) });
      };
      // The store failed while this round looked at it: stop following too (the run goes on in the store).
      const fail = (error: unknown): void => {
        stopped = true;
        following.abort();
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      // Parallel calls ask close together: wait until they are quiet a moment, to ask them in one round.
      const collect = (): void => {
        if (collecting === undefined) collectStarted = Date.now();
        else if (Date.now() - collectStarted >= COLLECT_MAX_MS)
          return; // asked for long enough: answer now
        else clearTimeout(collecting);
        collecting = setTimeout(() => void lookForApprovals().catch(fail), COLLECT_QUIET_MS);
      };
      const run = this.#store.submitRun({
        code,
        runId,
        ...(hooks.session ? { session: hooks.session } : {}),
        afterSeq,
        // A new run is queued only if a worker is alive to take it (the retry of a round attaches to its run).
        onlyWithLiveWorker: !resumed,
        signal: following.signal,
        onNoWorker: () => hooks.onNotice(this.#queuedWithoutWorker(runId)),
        onEvent: (event, seq) => {
          if (stopped) return;
          lastSeq = seq;
          if (event.kind === 'log') hooks.onLog(event.log);
          else if (event.kind === 'approval-required') collect();
        },
      });
      run.then(
        (result) => {
          if (stopped) return;
          stopped = true;
          clearTimeout(collecting);
          resolve({ kind: 'done', result });
        },
        (error: unknown) => {
          if (stopped) return;
          stopped = true;
          clearTimeout(collecting);
          if (noLiveWorker(error)) resolve({ kind: 'refused', message: this.#refusedWithoutWorker() });
          else if (hooks.signal.aborted)
            resolve({ kind: 'refused', message: `the request ended; run ${runId} goes on in the store ${describeStore(this.#store.url)}` });
          else fail(error);
        },
      );
      // Approvals of the last round the retry did not answer still wait: ask them again.
      if (resumed) collect();
    }).finally(() => hooks.signal.removeEventListener('abort', stopFollowing));
  }

  #open(requestState: unknown): SealedStoredRound | { refused: string } {
    const state =
      typeof requestState === 'string' ? (this.#sealer.open(STATE_PURPOSE, requestState) as SealedStoredRound | undefined) : undefined;
    if (
      !state ||
      typeof state.run !== 'string' ||
      !Array.isArray(state.approvals) ||
      !state.approvals.every((id) => typeof id === 'string') ||
      typeof state.seq !== 'number' ||
      typeof state.exp !== 'number'
    ) {
      return {
        refused:
          'the requestState was not sealed by a server of this store (it was altered or forged, or the servers use another state key: set the same AGENT_SPACES_STATE_KEY on every replica); call execute_code again',
      };
    }
    if (Date.now() > state.exp) {
      return {
        refused: `the requestState expired; run ${state.run} still waits in the store for its approvals: decide them with agent-spaces approvals (or a studio on the store), or call execute_code again`,
      };
    }
    return state;
  }

  async #ask(
    runId: string,
    approvalId: string,
    ask: (approval: StoredApproval, signal: AbortSignal) => Promise<ApprovalAnswer | undefined>,
    signal: AbortSignal,
  ): Promise<void> {
    const approval = await this.#store.approval(approvalId);
    if (approval === undefined || approval.status !== 'pending') return;
    let decision: ApprovalAnswer | undefined;
    try {
      decision = await ask(approval, signal);
    } catch (error) {
      // Withdrawn (decided elsewhere, or the request ended): the approval waits, or was decided, in the store.
      if (signal.aborted) return;
      throw error;
    }
    if (decision) await this.#store.decide(runId, approvalId, decision);
  }

  #refusedWithoutWorker(): string {
    return `no worker is running for the store ${describeStore(this.#store.url)}, so the program was not queued: start \`agent-spaces worker\` (with the same store), then call execute_code again`;
  }

  #queuedWithoutWorker(runId: string): string {
    return `run ${runId} is queued in ${describeStore(this.#store.url)}; no worker is running — start \`agent-spaces worker\``;
  }
}

/** A submit that queued nothing: no worker was alive (the store looked in the statement that would have queued it). */
function noLiveWorker(error: unknown): boolean {
  return error instanceof DurableError && error.code === 'NO_LIVE_WORKER';
}
