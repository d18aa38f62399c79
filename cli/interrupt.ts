/**
 * Ctrl-C (SIGINT) and SIGTERM end a command with "interrupted" on stderr and exit code 130 (143),
 * whatever it was doing: nothing it started outlives it (the sandbox workers' pipe closes, MCP servers
 * are stopped by their own exit hook). Library code may listen to these signals to clean up; that does
 * not make the signal handled, so this does not look at other listeners. A command that stops on its
 * own terms (a run followed in a store, which leaves it running there) says so with `handleInterrupts`.
 */
let installed = false;
let handledElsewhere = 0;
/** The command was handed to another process (the bin's relaunch), which answers the signals itself. */
let handedOver = false;

export function exitOnInterrupt(): void {
  if (installed) return;
  installed = true;
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.on(signal, () => {
      if (handedOver) return;
      if (handledElsewhere > 0 && signal === 'SIGINT') return;
      process.stderr.write('agent-spaces: interrupted\n');
      process.exit(code);
    });
  }
}

/** While the returned function is not called, Ctrl-C is the caller's to answer (SIGTERM still ends the command). */
export function handleInterrupts(): () => void {
  handledElsewhere++;
  let done = false;
  return () => {
    if (done) return;
    done = true;
    handledElsewhere--;
  };
}

/** The command now runs in another process that answers Ctrl-C and SIGTERM itself: this one stays silent. */
export function handOverInterrupts(): void {
  handedOver = true;
}
