import { ToolCallError } from '../../core/index.js';

/** The ToolCallError `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function toolCallErrorOf(promise: Promise<unknown>): Promise<ToolCallError> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ToolCallError)) throw new Error(`expected a ToolCallError, got ${String(error)}`);
  return error;
}
