export type EvalErrorCode = 'EVAL_SUITE_NOT_FOUND' | 'EVAL_SUITE_INVALID' | 'EVAL_BAD_TASKS' | 'EVAL_BAD_OPTION' | 'EVAL_RUN_FOLDER';

/** A fault of the eval's input (suite, options, run folder), with what was wrong and where. */
export class EvalError extends Error {
  override readonly name = 'EvalError';
  constructor(
    readonly code: EvalErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
