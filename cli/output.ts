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

/** Maps an error to a message and exit code: 2 for usage and config problems, 1 otherwise. */
export function reportError(error: unknown): number {
  if (error instanceof UsageError) {
    progress(`agent-spaces: ${error.message}\nRun "agent-spaces --help" for usage.`);
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
