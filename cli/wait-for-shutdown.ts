/** Until Ctrl-C or SIGTERM, or (stdio) until stdin closes: at once if it closed already (`< /dev/null`). */
export function waitForShutdown(stdio: boolean): Promise<void> {
  return new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (!stdio) return;
    // The client going away ends stdin; a file such as /dev/null ends it without ever emitting 'close'.
    // An input that ended while the server started will not emit either again: waiting for it would leave
    // Node with nothing to do but exit 13 (a top-level await unsettled).
    if (process.stdin.closed || process.stdin.readableEnded) done();
    else {
      process.stdin.once('end', done);
      process.stdin.once('close', done);
    }
  });
}
