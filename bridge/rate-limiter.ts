import { ToolCallError, type RateLimit, type RatePeriod } from '../core/index.js';

export const RATE_PERIOD_MS: Record<RatePeriod, number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** Bounds of waiting when a rate limit says `onLimit: 'queue'` and leaves them out. */
export const DEFAULT_RATE_QUEUE = { maxWaitMs: 30_000, maxQueue: 100 } as const;

/**
 * Why no slot was given: the window was full (`fail` mode), the queue was full, the wait would pass
 * (or passed) `maxWaitMs`, or the caller's signal ended the wait.
 */
export type RateRefusal = 'window-full' | 'queue-full' | 'wait-too-long' | 'cancelled';

export type RateDecision =
  | { allowed: true; waitedMs?: number }
  /** `waiting`: with `queue-full`, how many calls of the caller's own run wait (the bound that was hit). */
  | { allowed: false; retryAfterMs: number; reason?: RateRefusal; waiting?: number };

export interface RateLimiter {
  /** Takes one slot of `key`'s window if one is free; otherwise says how long until one frees up. */
  tryAcquire(key: string, limit: RateLimit): RateDecision;
  /**
   * Takes a slot, waiting for one when `limit.onLimit` is `queue` (bounded by `maxWaitMs`, and by
   * `maxQueue` waiting calls per owner); without `queue` it is {@link tryAcquire}. Owners (runs) take
   * turns: an owner's k-th waiting call is served in round k, so one run's hundred calls cannot keep
   * another run's first call waiting behind them. The owner defaults to `signal` (one per run). Never
   * rejects: an aborted `signal` resolves to `{ allowed: false, reason: 'cancelled' }` and takes the
   * call out of the queue.
   */
  acquire(key: string, limit: RateLimit, signal?: AbortSignal, owner?: unknown): Promise<RateDecision>;
  /** How many calls wait for a slot of `key`. */
  waiting(key: string): number;
}

interface Waiter {
  limit: RateLimit;
  since: number;
  owner: unknown;
  /** Its turn: waiters are served by round, and in arrival order within one. */
  round: number;
  settle(decision: RateDecision): void;
}

interface KeyQueue {
  waiters: Waiter[];
  /** The round of the last waiter served: a newcomer's first call waits in this round. */
  round: number;
  timer?: ReturnType<typeof setTimeout>;
}

/**
 * A sliding-window limiter: at most `limit.requests` acquisitions of a key within any window of
 * `limit.period`. Sliding rather than fixed windows, so a burst at a window's edge cannot double the
 * rate. Waiting calls are served by turns of their owners (runs), first in, first out within an owner,
 * and a call that arrives while others wait joins the line even when a slot is free, so nobody is
 * passed over. `now` is injectable for
 * deterministic tests (timers follow it when the test fakes them too).
 */
export function createRateLimiter(options: { now?: () => number } = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const windows = new Map<string, number[]>();
  const queues = new Map<string, KeyQueue>();

  /** The stamps still inside the window, oldest first. */
  const recentStamps = (key: string, periodMs: number, time: number): number[] => {
    const recent = (windows.get(key) ?? []).filter((stamp) => stamp > time - periodMs);
    windows.set(key, recent);
    return recent;
  };

  const tryAcquire = (key: string, limit: RateLimit): RateDecision => {
    const periodMs = RATE_PERIOD_MS[limit.period];
    const time = now();
    const recent = recentStamps(key, periodMs, time);
    if (recent.length >= limit.requests) {
      const oldest = recent[recent.length - limit.requests] ?? time;
      return { allowed: false, retryAfterMs: Math.max(1, oldest + periodMs - time), reason: 'window-full' };
    }
    recent.push(time);
    return { allowed: true };
  };

  /**
   * The soonest the call at `position` in the line can get a slot, when nobody else takes one: the
   * `index`-th slot from now is freed by the stamp `requests` slots before it, one period later (and
   * a slot handed out while waiting frees its successor a period after that).
   */
  const soonestWait = (key: string, limit: RateLimit, position: number): number => {
    const periodMs = RATE_PERIOD_MS[limit.period];
    const time = now();
    const recent = recentStamps(key, periodMs, time);
    const index = recent.length - limit.requests + position;
    if (index < 0) return 0;
    const rounds = Math.max(0, Math.ceil((index - recent.length + 1) / limit.requests));
    const stamp = recent[index - rounds * limit.requests];
    return stamp === undefined ? rounds * periodMs : Math.max(1, stamp + (rounds + 1) * periodMs - time);
  };

  /** Gives free slots to the waiters at the head of the line, then sleeps until the next slot frees up. */
  const pump = (key: string): void => {
    const queue = queues.get(key);
    if (queue === undefined) return;
    if (queue.timer !== undefined) clearTimeout(queue.timer);
    queue.timer = undefined;
    for (let head = queue.waiters[0]; head !== undefined; head = queue.waiters[0]) {
      const decision = tryAcquire(key, head.limit);
      if (!decision.allowed) {
        queue.timer = setTimeout(() => pump(key), decision.retryAfterMs);
        return;
      }
      queue.waiters.shift();
      queue.round = head.round;
      head.settle({ allowed: true, waitedMs: now() - head.since });
    }
    queues.delete(key);
  };

  return {
    tryAcquire,
    waiting(key) {
      return queues.get(key)?.waiters.length ?? 0;
    },
    acquire(key, limit, signal, owner = signal) {
      if (limit.onLimit !== 'queue') return Promise.resolve(tryAcquire(key, limit));
      if (signal?.aborted) return Promise.resolve({ allowed: false, retryAfterMs: 0, reason: 'cancelled' });
      const queue = queues.get(key);
      if (queue === undefined) {
        const decision = tryAcquire(key, limit);
        if (decision.allowed) return Promise.resolve(decision);
      }
      const maxQueue = limit.maxQueue ?? DEFAULT_RATE_QUEUE.maxQueue;
      const maxWaitMs = limit.maxWaitMs ?? DEFAULT_RATE_QUEUE.maxWaitMs;
      const line: KeyQueue = queue ?? { waiters: [], round: 0 };
      const own = line.waiters.filter((waiter) => waiter.owner === owner);
      // The next round after this owner's last waiting call; a newcomer's first call joins the current one.
      const round = own.length === 0 ? line.round : (own[own.length - 1]?.round ?? line.round) + 1;
      const after = line.waiters.findIndex((waiter) => waiter.round > round);
      const position = after === -1 ? line.waiters.length : after;
      const soonest = soonestWait(key, limit, position);
      if (own.length >= maxQueue)
        return Promise.resolve({ allowed: false, retryAfterMs: soonest, reason: 'queue-full', waiting: own.length });
      // A wait that cannot end in time is refused now rather than after maxWaitMs of waiting.
      if (soonest > maxWaitMs) return Promise.resolve({ allowed: false, retryAfterMs: soonest, reason: 'wait-too-long' });
      return new Promise<RateDecision>((resolve) => {
        queues.set(key, line);
        const leave = (decision: RateDecision): void => {
          const index = line.waiters.indexOf(waiter);
          if (index >= 0) line.waiters.splice(index, 1);
          waiter.settle(decision);
          // The head may have left: the next in line gets its turn (or the line is gone).
          if (index === 0 || line.waiters.length === 0) pump(key);
        };
        const deadline = setTimeout(
          () => leave({ allowed: false, retryAfterMs: soonestWait(key, limit, 0), reason: 'wait-too-long' }),
          maxWaitMs,
        );
        const onAbort = (): void => leave({ allowed: false, retryAfterMs: 0, reason: 'cancelled' });
        let settled = false;
        const waiter: Waiter = {
          limit,
          since: now(),
          owner,
          round,
          settle(decision) {
            if (settled) return;
            settled = true;
            clearTimeout(deadline);
            signal?.removeEventListener('abort', onAbort);
            resolve(decision);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        line.waiters.splice(position, 0, waiter);
        if (position === 0) pump(key);
      });
    },
  };
}

/**
 * The error for a refused slot, saying which bound was hit and what to do: `RATE_LIMITED` (with
 * `retryAfterMs` and the limit in `details`), or `CANCELLED` when the run ended while the call waited.
 */
export function rateLimitError(
  decision: Extract<RateDecision, { allowed: false }>,
  limit: RateLimit,
  call: { subject: string; names: { capability: string; function: string } },
): ToolCallError {
  const { subject, names } = call;
  if (decision.reason === 'cancelled') {
    return new ToolCallError('CANCELLED', `${subject} was cancelled while it waited for a rate-limit slot: the run ended`, names);
  }
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const allows = `capability "${names.capability}" allows ${limit.requests} calls per ${limit.period}`;
  const retry = `retry after ${seconds(decision.retryAfterMs)}`;
  const maxWaitMs = limit.maxWaitMs ?? DEFAULT_RATE_QUEUE.maxWaitMs;
  const why =
    decision.reason === 'queue-full'
      ? `${allows} and ${decision.waiting ?? limit.maxQueue ?? DEFAULT_RATE_QUEUE.maxQueue} calls already wait for a slot (maxQueue ${limit.maxQueue ?? DEFAULT_RATE_QUEUE.maxQueue}); ${retry}`
      : decision.reason === 'wait-too-long'
        ? `${allows}; no slot frees up within maxWaitMs (${seconds(maxWaitMs)}); ${retry}, or raise maxWaitMs`
        : `${allows}; ${retry}`;
  return new ToolCallError('RATE_LIMITED', `${subject} is rate-limited: ${why}`, names, {
    details: { retryAfterMs: decision.retryAfterMs, limit, ...(decision.reason ? { reason: decision.reason } : {}) },
  });
}
