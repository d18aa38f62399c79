/**
 * Waits for `promise`, or rejects with `abortError()` as soon as `signal` aborts (also when it had
 * already aborted); the promise itself keeps going for whoever else awaits it.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal, abortError: () => unknown = () => signal.reason): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
