import { createRedactor } from '../bridge/index.js';

export interface TaskRedactor {
  /** A copy of a value with secret-looking keys, known secret values and credential shapes redacted. */
  value<T>(value: T): T;
  text(text: string): string;
}

/**
 * The planner's redactor: the bridge's (key rules, known secret values — the model API key, MCP server
 * env, args and header values — URL passwords and credential shapes such as `sk-…`). Everything passes
 * through it before it reaches the prompt, a log, the trace or a file.
 */
export function createTaskRedactor(secrets: readonly string[]): TaskRedactor {
  const redactor = createRedactor({ secrets });
  return {
    value: redactor,
    text: (input) => redactor(input),
  };
}
