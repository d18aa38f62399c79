import { escapeControlCharacters, toTerminalJson } from '../bridge/index.js';
import { AgentSpacesError, ConfigError, errorMessage } from '../core/index.js';
import { UsageError } from './usage-error.js';

// Everything the CLI prints may hold text from a program, a tool or a server: it goes through one of
// these, which write control characters (ESC, CR, BEL, C1, bidi overrides, zero-width) visibly escaped.

/** Progress and diagnostics go to stderr; results to stdout. */
export function progress(line: string): void {
  process.stderr.write(`${escapeControlCharacters(line)}\n`);
}

/** A result as text on stdout. */
export function printText(text: string): void {
  process.stdout.write(`${escapeControlCharacters(text)}\n`);
}

/** A result as JSON on stdout: still valid JSON, with the characters JSON leaves raw escaped as `\uXXXX`. */
export function printJson(value: unknown): void {
  process.stdout.write(`${toTerminalJson(value, 2)}\n`);
}

export { UsageError };

/**
 * Maps an error to a message and exit code: 2 for usage and config problems, 1 otherwise. `command`:
 * the command the line named, whose help a usage error points at.
 */
export function reportError(error: unknown, command?: string): number {
  if (error instanceof UsageError) {
    const topic = error.command ?? command;
    progress(
      `agent-spaces: ${error.message}\nRun "agent-spaces ${topic === undefined ? '--help" for usage' : `${topic} --help" for its usage and options`}.`,
    );
    return 2;
  }
  const unavailable = unavailableAddress(error);
  if (unavailable !== undefined) {
    progress(`agent-spaces: ${unavailable}`);
    return 2;
  }
  if (error instanceof ConfigError) {
    progress(`agent-spaces: ${error.message}`);
    return 2;
  }
  if (error instanceof AgentSpacesError) {
    progress(`agent-spaces: ${error.message}`);
    return 1;
  }
  progress(`agent-spaces: unexpected error: ${errorMessage(error)}`);
  if (process.env.AGENT_SPACES_DEBUG && error instanceof Error && error.stack) progress(error.stack);
  return 1;
}

/**
 * A server that cannot listen where it was told (a port in use, or one below 1024 without the right):
 * which address, and what to do instead. Undefined for any other error.
 */
function unavailableAddress(error: unknown): string | undefined {
  // The listen error itself, or the cause of an error that wraps it.
  let failure = error as (NodeJS.ErrnoException & { address?: string; port?: number }) | undefined;
  for (let depth = 0; failure instanceof Error && failure.syscall !== 'listen' && depth < 5; depth++)
    failure = failure.cause as typeof failure;
  if (!(failure instanceof Error) || failure.syscall !== 'listen') return undefined;
  const where = failure.address !== undefined && failure.port !== undefined ? `${failure.address}:${failure.port}` : 'the address';
  if (failure.code === 'EADDRINUSE')
    return `cannot listen on ${where}: another program is using that port; choose another one (0 picks any free port)`;
  if (failure.code === 'EACCES')
    return `cannot listen on ${where}: not permitted (ports below 1024 need privileges); choose a port above 1023 (0 picks any free port)`;
  if (failure.code === 'EADDRNOTAVAIL')
    return `cannot listen on ${where}: no network interface of this machine has that address; check --host`;
  return undefined;
}
