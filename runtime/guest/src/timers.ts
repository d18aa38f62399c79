// ---------------------------------------------------------------- timers
const MAX_PENDING_TIMERS = TIMER_LIMITS.maxPending,
  MAX_TIMERS_PER_RUN = TIMER_LIMITS.maxPerRun,
  MAX_TIMER_DELAY = TIMER_LIMITS.maxDelayMs;
/** A pending timer of the program. */
interface ProgramTimer {
  handler: (...args: unknown[]) => unknown;
  args: unknown[];
  repeat: boolean;
  delay: number;
  nesting: number;
}
const timers = new MapConstructor<number, ProgramTimer>();
let timersCreated = 0,
  lastTimerId = 0,
  timerNesting = 0;

function timerLimitError(message: string): RangeError {
  const error = new RangeErrorConstructor(message);
  defineProperty(error, 'code', { value: 'TIMER_LIMIT', writable: true, enumerable: true, configurable: true });
  return error;
}
/** HTML's timer delay: whole ms, 0 for NaN or negative, at most 2^31 − 1, at least 4 ms past five nested levels. */
function timerDelay(timeout: unknown, nesting: number): number {
  let delay = NumberConstructor(timeout);
  if (!(delay > 0)) delay = 0;
  else if (delay > MAX_TIMER_DELAY) delay = MAX_TIMER_DELAY;
  else delay = mathFloor(delay);
  return nesting > 5 && delay < 4 ? 4 : delay;
}
function startTimer(kind: string, handler: unknown, timeout: unknown, args: unknown[], repeat: boolean): number {
  if (typeof handler !== 'function')
    throw new TypeErrorConstructor(kind + ' takes a function to call; the sandbox does not evaluate strings of code');
  // The delay first: converting it may run the program's valueOf, which may start timers itself. The
  // limits are checked after that, right before this timer is counted, so none is passed.
  const nesting = timerNesting + 1;
  const delay = timerDelay(timeout, nesting);
  if (mapSize(timers) >= MAX_PENDING_TIMERS) {
    throw timerLimitError(
      kind +
        ': ' +
        MAX_PENDING_TIMERS +
        " timers are already pending in this run, the sandbox's limit; clear the ones you no longer need (clearTimeout, clearInterval) or wait for some to fire",
    );
  }
  if (timersCreated >= MAX_TIMERS_PER_RUN) {
    throw timerLimitError(
      kind +
        ': this run already created ' +
        MAX_TIMERS_PER_RUN +
        " timers, the sandbox's limit per run; wait with fewer, longer timers (or one setInterval) instead",
    );
  }
  const id = ++lastTimerId;
  timersCreated++;
  mapSet(timers, id, { __proto__: null, handler: handler as ProgramTimer['handler'], args, repeat, delay, nesting } as ProgramTimer);
  timerHost(true, id, delay, repeat);
  return id;
}
function stopTimer(id: unknown): void {
  if (typeof id !== 'number' || !mapDelete(timers, id)) return;
  timerHost(false, id, 0, false);
}
// Named functions, as in a browser (setTimeout.name is 'setTimeout').
function setTimeout(handler: unknown, timeout: unknown = 0, ...args: unknown[]): number {
  return startTimer('setTimeout', handler, timeout, args, false);
}
function setInterval(handler: unknown, timeout: unknown = 0, ...args: unknown[]): number {
  return startTimer('setInterval', handler, timeout, args, true);
}
function clearTimeout(id: unknown): void {
  stopTimer(id);
}
function clearInterval(id: unknown): void {
  stopTimer(id);
}
installGlobal('setTimeout', setTimeout);
installGlobal('setInterval', setInterval);
installGlobal('clearTimeout', clearTimeout);
installGlobal('clearInterval', clearInterval);

/** An error nothing in the program can catch any more ends the run with it (like an uncaught exception in Node). */
function reportUncaught(thrown: unknown): void {
  complete(false, stringifyJson(describeError(thrown), false)!);
}
/**
 * Called by the host when timer `id` is due. Returns the delay to arm an interval with again, or -1
 * when the timer is done (a one-shot timer, a cleared one, or a callback that threw).
 */
function wake(id: number): number {
  const timer = mapGet(timers, id) as ProgramTimer | undefined;
  if (timer === undefined) return -1;
  if (!timer.repeat) mapDelete(timers, id);
  timerNesting = timer.nesting;
  try {
    reflectApply(timer.handler, globalThis, timer.args);
  } catch (thrown) {
    reportUncaught(thrown);
    return -1;
  } finally {
    timerNesting = 0;
  }
  if (!timer.repeat || mapGet(timers, id) !== timer) return -1;
  timer.nesting++;
  return timerDelay(timer.delay, timer.nesting);
}

// An async function: `await` queues the job without looking up anything a program can replace
// (Promise.prototype.then, the species constructor).
async function runMicrotask(callback: () => unknown): Promise<void> {
  await undefined;
  try {
    reflectApply(callback, undefined, []);
  } catch (thrown) {
    reportUncaught(thrown);
  }
}
function queueMicrotask(callback: unknown): void {
  if (typeof callback !== 'function') throw new TypeErrorConstructor('queueMicrotask takes a function to call');
  runMicrotask(callback as () => unknown);
}
installGlobal('queueMicrotask', queueMicrotask);
