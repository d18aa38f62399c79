import { EncodedJson, ToolCallError, errorMessage, utf8SizeOver } from '../core/index.js';
import type { CallContext, JsonSchema } from '../core/index.js';
import type { PreparedFunction } from './call-targets.js';
import type { SchemaCheck, SchemaIssue } from './schema-validator.js';

/** Compiles a JSON Schema into a check (`createSchemaCompiler()`). */
type CompileSchema = (schema: JsonSchema) => SchemaCheck;

/** A call's arguments, checked against the function's input schema (compiled on its first call). */
export function validateArguments(prepared: PreparedFunction, raw: unknown, compile: CompileSchema): Record<string, unknown> {
  const args = raw ?? {};
  const { subject, names } = prepared;
  const issues = (prepared.args ??= compile(prepared.target.function.inputSchema))(args);
  if (issues.length > 0) {
    throw new ToolCallError('INVALID_ARGUMENTS', `${subject}: ${issues.map(describeArgumentIssue).join('; ')}`, names, {
      details: { issues },
    });
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    throw new ToolCallError('INVALID_ARGUMENTS', `${subject}: arguments must be an object of named arguments`, names);
  }
  return args as Record<string, unknown>;
}

/**
 * Refuses a value that does not match the function's output schema (compiled on first use); `performed`
 * is what the backend said it did, for the message of a call that may have changed something.
 */
export function checkResult(prepared: PreparedFunction, value: unknown, performed: string | undefined, compile: CompileSchema): void {
  const { subject, names } = prepared;
  const spec = prepared.target.function;
  if (spec.outputSchema === undefined) return;
  const issues = (prepared.result ??= compile(spec.outputSchema))(value);
  if (issues.length === 0) return;
  // After a call that may have changed something, the message must not read as if nothing happened.
  const effect =
    spec.annotations?.readOnlyHint === true || spec.annotations?.idempotentHint === true
      ? undefined
      : `the call was performed${performed === undefined ? '' : ` (${performed})`}`;
  throw new ToolCallError(
    'INVALID_RESULT',
    effect === undefined
      ? `${subject} returned a result that does not match its output schema: ${issues.map(describeResultIssue).join('; ')}`
      : `${subject}: ${effect} but its result did not match the declared type: ${issues.map(describeResultIssue).join('; ')}`,
    names,
    { details: { issues } },
  );
}

/** The value's JSON text, measured against the cap once: the text the sandbox receives. */
export function encodeResult(value: unknown, prepared: PreparedFunction, maxResultBytes: number): EncodedJson {
  const { subject, names } = prepared;
  const json = new EncodedJson(serialize(value, subject, names));
  // Most results are far enough under the cap to need no count.
  const sizeBytes = utf8SizeOver(json.text, maxResultBytes);
  if (sizeBytes !== undefined) {
    throw new ToolCallError(
      'RESULT_TOO_LARGE',
      `${subject} returned ${formatBytes(sizeBytes)}, over the ${formatBytes(maxResultBytes)} cap (maxResultBytes): ask for less (filter, paginate) or raise the cap`,
      names,
      { details: { sizeBytes, maxResultBytes } },
    );
  }
  return json;
}

/** What the program sees of a backend's failure. */
export function asCallError(error: unknown, context: CallContext, prepared: PreparedFunction): ToolCallError {
  if (error instanceof ToolCallError) return error;
  if (context.signal.aborted)
    return new ToolCallError('CANCELLED', `${prepared.subject} was cancelled: the run ended`, prepared.names, { cause: error });
  return new ToolCallError('TOOL_FAILED', `${prepared.subject} failed: ${errorMessage(error)}`, prepared.names, { cause: error });
}

function describeArgumentIssue(issue: SchemaIssue): string {
  return issue.path === '' ? `arguments ${issue.message}` : `argument "${issue.path}" ${issue.message}`;
}

function describeResultIssue(issue: SchemaIssue): string {
  const path = issue.path === '' ? 'result' : issue.path.startsWith('[') ? `result${issue.path}` : `result.${issue.path}`;
  return `${path} ${issue.message}`;
}

function serialize(value: unknown, subject: string, names: { capability: string; function: string }): string {
  try {
    return JSON.stringify(value ?? null) ?? 'null';
  } catch (error) {
    throw new ToolCallError('INVALID_RESULT', `${subject} returned a value that is not JSON-serialisable: ${errorMessage(error)}`, names, {
      cause: error,
    });
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
