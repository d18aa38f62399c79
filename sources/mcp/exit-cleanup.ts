/**
 * Kills tracked MCP server children when the host exits or is interrupted, so a Ctrl-C never leaves
 * orphaned servers behind. Listeners are installed while at least one child is tracked.
 */
const tracked = new Set<number>();
const signals = ['SIGINT', 'SIGTERM'] as const;

function killTracked(): void {
  for (const pid of tracked) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  tracked.clear();
}

function onExit(): void {
  killTracked();
}

function onSignal(signal: NodeJS.Signals): void {
  killTracked();
  uninstall();
  // Our listener replaced Node's default "terminate on signal"; when nobody else handles the signal,
  // raise it again so the process still ends the way the user asked.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  process.on('exit', onExit);
  for (const signal of signals) process.on(signal, onSignal);
}

function uninstall(): void {
  process.off('exit', onExit);
  for (const signal of signals) process.off(signal, onSignal);
}

/** Tracks a child process id; the returned function stops tracking it (call it once the child is closed). */
export function trackChildProcess(pid: number): () => void {
  if (tracked.size === 0) install();
  tracked.add(pid);
  return () => {
    if (!tracked.delete(pid)) return;
    if (tracked.size === 0) uninstall();
  };
}

/** How many children are tracked (for tests). */
export function trackedChildCount(): number {
  return tracked.size;
}
