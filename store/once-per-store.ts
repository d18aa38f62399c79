/**
 * Wraps a store's set-up step (creating tables, migrating DBOS's schema) so it runs once per process
 * and store URL: later calls share the first one's promise. A failed attempt is forgotten, so a later
 * call tries again (the database may come up, or be created, meanwhile).
 */
export function oncePerStore<Rest extends unknown[]>(
  work: (url: string, ...rest: Rest) => Promise<void>,
): (url: string, ...rest: Rest) => Promise<void> {
  const done = new Map<string, Promise<void>>();
  return (url, ...rest) => {
    const known = done.get(url);
    if (known !== undefined) return known;
    const attempt = work(url, ...rest);
    done.set(url, attempt);
    attempt.catch(() => {
      if (done.get(url) === attempt) done.delete(url);
    });
    return attempt;
  };
}
