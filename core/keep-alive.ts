/**
 * Keeps the event loop alive until `promise` settles. On Node 20, a dynamic `import()` that waits on
 * off-thread loader hooks (tsx) does not by itself keep the loop alive: when nothing else is pending
 * the process can end with exit code 13 ("unsettled top-level await") while the import is on its way.
 */
export async function keepAliveUntil<T>(promise: Promise<T>): Promise<T> {
  const timer = setInterval(() => undefined, 1 << 30);
  try {
    return await promise;
  } finally {
    clearInterval(timer);
  }
}
