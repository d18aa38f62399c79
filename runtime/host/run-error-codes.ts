/**
 * The codes a run can end with, and who may say them. A program can only fail with `RUNTIME_ERROR`,
 * `RESULT_NOT_SERIALIZABLE` or the code of a tool error the host really sent it; everything else
 * (`TIMEOUT`, `MEMORY_LIMIT`, `OUTPUT_LIMIT`, `CALL_LIMIT_EXCEEDED`, …) is decided by the runtime.
 */
import type { RunError } from '../../core/run-result.js';

/** Codes the program's own code produces. */
const PROGRAM_CODES: ReadonlySet<string> = new Set(['RUNTIME_ERROR', 'RESULT_NOT_SERIALIZABLE']);

/** Codes a sandbox worker's runtime may report for a run (it decided them, next to the isolate). */
export const WORKER_DECIDED_CODES: ReadonlySet<string> = new Set([
  ...PROGRAM_CODES,
  'SYNTAX_ERROR',
  'TIMEOUT',
  'MEMORY_LIMIT',
  'OUTPUT_LIMIT',
  'CANCELLED',
  'DEADLOCK',
  'SANDBOX_ERROR',
  'IMPORT_REFUSED',
  'MODULE_NOT_FOUND',
]);

/**
 * Codes the bootstrap gives calls it refuses itself (past maxCalls or maxArgumentBytes), from the
 * host's templates: a program may end with them although the host never sent them.
 */
export const BOOTSTRAP_REFUSAL_CODES: readonly string[] = ['CALL_LIMIT_EXCEEDED', 'INVALID_ARGUMENTS'];

/** The run's failure when the engine counted more memory than `memoryLimitMb` (every engine's words). */
export function memoryLimitError(memoryLimitMb: number): RunError {
  return {
    name: 'SandboxMemoryError',
    code: 'MEMORY_LIMIT',
    message: `the program used more than its memory limit of ${memoryLimitMb} MB and was stopped; use less memory or raise sandbox.memoryLimitMb in the config`,
  };
}

/** Largest message and stack kept from an error the isolate reports. */
const MAX_TEXT = 64 * 1024;

/**
 * Reads an error the isolate (or a worker) reported, as untrusted JSON text: only string fields of
 * bounded length are kept, and a code is kept only when `mayReport` allows it (else RUNTIME_ERROR).
 */
export function readReportedError(json: string, mayReport: (code: string) => boolean): RunError {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { name: 'SandboxError', code: 'SANDBOX_ERROR', message: 'the sandbox reported an unreadable error' };
  }
  const record = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  const text = (key: string): string | undefined => {
    const value = record[key];
    return typeof value === 'string' ? value.slice(0, MAX_TEXT) : undefined;
  };
  const code = text('code') ?? 'RUNTIME_ERROR';
  const error: RunError = { name: text('name') ?? 'Error', message: text('message') ?? '', code: mayReport(code) ? code : 'RUNTIME_ERROR' };
  const stack = text('stack');
  if (stack !== undefined) error.stack = stack;
  for (const key of ['capability', 'function'] as const) {
    const value = text(key);
    if (value !== undefined) error[key] = value;
  }
  return error;
}

/**
 * `error` with its texts cut to what the host keeps of a reported error. An isolate's own failure can
 * quote the program (a link error names the import: a 3 MB specifier made a frame past the host's
 * limit, and the host killed the worker with every run in it).
 */
export function boundedRunError(error: RunError): RunError {
  const bounded: RunError = { ...error, name: error.name.slice(0, MAX_TEXT), message: error.message.slice(0, MAX_TEXT) };
  if (error.stack !== undefined) bounded.stack = error.stack.slice(0, MAX_TEXT);
  return bounded;
}

/** What a program may report: its own codes, and codes of tool errors the host sent this run. */
export function programMayReport(hostSentCodes: ReadonlySet<string>): (code: string) => boolean {
  return (code) => PROGRAM_CODES.has(code) || hostSentCodes.has(code);
}

/** The string code of a wire error given as JSON text (`data.code`), if it has one. */
export function wireErrorCode(json: string): string | undefined {
  try {
    const code = (JSON.parse(json) as { data?: { code?: unknown } }).data?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
