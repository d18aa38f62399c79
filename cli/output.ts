import { AgentSpacesError, ConfigError, errorMessage } from '../core/index.js';

/** Progress and diagnostics go to stderr; results to stdout. */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

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
