import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import type { JsonSchema } from '../core/index.js';

/** One problem found in a value, with a readable path (`user.tags[0]`, or `''` for the value itself). */
export interface SchemaIssue {
  path: string;
  message: string;
}

export type SchemaCheck = (value: unknown) => SchemaIssue[];

type FormatsPlugin = (ajv: Ajv) => Ajv;
// ajv-formats is CommonJS with `exports.default`; NodeNext types its default import as the namespace.
const addFormats: FormatsPlugin =
  (formatsModule as unknown as { default?: FormatsPlugin }).default ?? (formatsModule as unknown as FormatsPlugin);

const ajvOptions: Options = { allErrors: true, strict: false, validateFormats: true };

/**
 * Compiles JSON Schemas into checks, picking the ajv dialect from `$schema` (2020-12, 2019-09, or
 * draft-07 for anything else, which is what most tool schemas are written in).
 */
export function createSchemaCompiler(): (schema: JsonSchema) => SchemaCheck {
  const instances = new Map<string, Ajv>();
  const ajvFor = (dialect: 'draft-07' | '2019-09' | '2020-12'): Ajv => {
    let ajv = instances.get(dialect);
    if (ajv === undefined) {
      ajv =
        dialect === '2020-12'
          ? (new Ajv2020(ajvOptions) as unknown as Ajv)
          : dialect === '2019-09'
            ? (new Ajv2019(ajvOptions) as unknown as Ajv)
            : new Ajv(ajvOptions);
      addFormats(ajv);
      instances.set(dialect, ajv);
    }
    return ajv;
  };

  return (schema) => {
    const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
    const dialect = declared.includes('2020-12') ? '2020-12' : declared.includes('2019-09') ? '2019-09' : 'draft-07';
    // Each instance knows its own meta-schema; draft-04/06 URIs are not registered in ajv but validate
    // the same under draft-07. `$id` goes too: two tools may share one, and ajv refuses duplicates.
    const { $schema: _ignored, $id: _id, ...body } = schema;
    const validate: ValidateFunction = ajvFor(dialect).compile(body);
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
