import type { ErrorObject, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../core/index.js';
import { createJsonSchemaCompiler } from '../core/json-schema.js';

/** One problem found in a value, with a readable path (`user.tags[0]`, or `''` for the value itself). */
export interface SchemaIssue {
  path: string;
  message: string;
}

export type SchemaCheck = (value: unknown) => SchemaIssue[];

/**
 * Compiles JSON Schemas into checks with the same ajv setup the compiler used at build time
 * (`createJsonSchemaCompiler`), so a schema that built is one that validates here.
 *
 * @throws CompileError (code `INVALID_SCHEMA`) for a schema ajv cannot compile.
 */
export function createSchemaCompiler(): (schema: JsonSchema) => SchemaCheck {
  const compile = createJsonSchemaCompiler();
  return (schema) => {
    const validate: ValidateFunction = compile(schema);
    return (value) => (validate(value) ? [] : (validate.errors ?? []).map((error) => describeIssue(error, value)));
  };
}
function describeIssue(error: ErrorObject, root: unknown): SchemaIssue {
  const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { path: formatPath([...segments, params.missingProperty]), message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return { path: formatPath([...segments, params.additionalProperty]), message: 'is not allowed (no such property)' };
  }
  let message = error.message ?? `fails ${error.keyword}`;
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    message = `must be one of ${params.allowedValues.map((allowed) => preview(allowed)).join(', ')}`;
  }
  return { path: formatPath(segments), message: `${message} (got ${preview(valueAt(root, segments))})` };
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function formatPath(segments: string[]): string {
  let path = '';
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  return path;
}

function valueAt(root: unknown, segments: string[]): unknown {
  let current = root;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

const PREVIEW_LIMIT = 60;

/** A short JSON rendering of a value for error messages. */
export function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > PREVIEW_LIMIT ? `${text.slice(0, PREVIEW_LIMIT)}…` : text;
}
