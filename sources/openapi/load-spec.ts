import { readFile, stat } from 'node:fs/promises';
import type { parse as YamlParse } from 'yaml';
import { CompileError, errorMessage, readBodyUpTo, redactText, secretsOfUrl } from '../../core/index.js';
import type { OpenApiConfig } from '../../config/index.js';
import { MAX_OUTPUT_CHARS, MIN_OUTPUT_CHARS, OUTPUT_PER_SPEC_CHAR, outputBudget } from './convert-schema.js';
import { findPointers, pointerAtLine, type JsonObject } from './json-walk.js';

/** The largest spec read or downloaded: GitHub's whole REST API is about 12 MB of JSON. */
export const MAX_SPEC_BYTES = 32 * 1024 * 1024;
const SPEC_FETCH_TIMEOUT_MS = 30_000;

export interface LoadedSpec {
  /** The document with every internal `$ref` replaced by its target (shared objects; cycles kept as cycles). */
  document: JsonObject;
  version: '3.0' | '3.1';
  /** Where a relative `servers` URL resolves against: the spec's URL, when it was downloaded. */
  baseUrl?: URL;
  /** Every object a `$ref` resolved to, with that `$ref` (the first one met): such objects are shared. */
  references: ReadonlyMap<object, string>;
  /** The size of the spec's text, in characters (what its output is measured against). */
  size: number;
}

/**
 * Reads an OpenAPI 3.0 or 3.1 spec (JSON or YAML, a local file or an http(s) URL, at most
 * {@link MAX_SPEC_BYTES}), validates it with `@readme/openapi-parser` and dereferences its `$ref`s.
 * References to other files or URLs are not followed (nothing is fetched but the spec itself).
 *
 * @throws CompileError naming the API, the spec and, where known, the JSON pointer of the problem.
 */
export async function loadSpec(api: string, config: OpenApiConfig, signal?: AbortSignal): Promise<LoadedSpec> {
  const remote = /^https?:\/\//i.test(config.spec);
  // A spec URL's user, password and secret query values are never shown (messages, --json, the manifest).
  const where = `openapi "${api}" (${remote ? redactText(config.spec, secretsOfUrl(config.spec, 'spec URL')) : config.spec})`;
  const text = remote ? await downloadSpec(where, config.spec, signal) : await readSpecFile(where, config.spec);
  const raw = parseSpecText(where, text, /^\s*\{/.test(text) ? undefined : (await import('yaml')).parse);
  checkExpandedSize(where, raw, text.length);
  const version = specVersion(where, raw);
  // The validator dereferences its copy in place and quotes code frames of that copy's JSON text.
  const validated = structuredClone(raw);
  // The parser and yaml load when a spec is read, not with the package (test/package-imports.test.ts).
  const { validate } = await import('@readme/openapi-parser');
  const result = await validate(validated as never, { resolve: { external: false } });
  if (!result.valid)
    throw new CompileError(
      'OPENAPI_INVALID',
      `${where} is not a valid OpenAPI ${version} document: ${describeProblems(raw, validated, result.errors)}`,
    );
  let document: JsonObject;
  const references = new Map<object, string>();
  const remember = (ref: string, value: object): void => void (references.has(value) || references.set(value, ref));
  try {
    const { dereference } = await import('@readme/openapi-parser');
    document = (await dereference(raw as never, {
      resolve: { external: false },
      dereference: { onDereference: remember },
    })) as unknown as JsonObject;
  } catch (error) {
    throw new CompileError('OPENAPI_INVALID', `${where}: resolving $refs failed: ${errorMessage(error)}`, { cause: error });
  }
  return { document, version, references, size: text.length, ...(remote ? { baseUrl: withoutCredentials(config.spec) } : {}) };
}

async function readSpecFile(where: string, file: string): Promise<string> {
  try {
    const size = (await stat(file)).size;
    if (size > MAX_SPEC_BYTES)
      throw new CompileError('OPENAPI_SPEC_TOO_LARGE', `${where}: the spec is ${size} bytes, over the ${MAX_SPEC_BYTES}-byte limit`);
    return await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof CompileError) throw error;
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new CompileError(
      'OPENAPI_SPEC_UNREADABLE',
      missing
        ? `${where}: no spec file at ${file} (a path relative to the config file, or an https URL)`
        : `${where}: cannot read the spec: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

/** The spec URL a relative `servers` URL resolves against: no user, password or query (they are the spec's, not the calls'). */
function withoutCredentials(spec: string): URL {
  const url = new URL(spec);
  url.username = '';
  url.password = '';
  url.search = '';
  return url;
}

/**
 * Downloads a spec within a time and size bound. The configured headers are for calls, not sent here;
 * a user and password written in the spec URL are (as Basic authorization: fetch refuses them in a URL).
 */
async function downloadSpec(where: string, url: string, signal: AbortSignal | undefined): Promise<string> {
  const timeout = AbortSignal.timeout(SPEC_FETCH_TIMEOUT_MS);
  try {
    const target = new URL(url);
    const headers: Record<string, string> = { accept: 'application/json, application/yaml, text/yaml, */*' };
    if (target.username !== '' || target.password !== '') {
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
      target.username = '';
      target.password = '';
    }
    const response = await fetch(target, { headers, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    if (!response.ok) {
      await response.body?.cancel();
      throw new CompileError(
        'OPENAPI_SPEC_UNREADABLE',
        `${where}: downloading the spec answered ${response.status} ${response.statusText}`,
      );
    }
    const body = await readBodyUpTo(response, MAX_SPEC_BYTES);
    if (body === undefined) throw new CompileError('OPENAPI_SPEC_TOO_LARGE', `${where}: the spec is over the ${MAX_SPEC_BYTES}-byte limit`);
    return body.toString('utf8');
  } catch (error) {
    if (error instanceof CompileError) throw error;
    const reason = timeout.aborted ? `no answer within ${SPEC_FETCH_TIMEOUT_MS} ms` : errorMessage(error);
    throw new CompileError('OPENAPI_SPEC_UNREADABLE', `${where}: downloading the spec failed: ${reason}`, { cause: error });
  }
}

function parseSpecText(where: string, text: string, parseYaml: typeof YamlParse | undefined): JsonObject {
  let value: unknown;
  try {
    // JSON is YAML too, but JSON.parse reads a large JSON spec many times faster.
    value = parseYaml === undefined ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 1000 });
  } catch (error) {
    throw new CompileError('OPENAPI_INVALID', `${where}: the spec is neither valid JSON nor YAML: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CompileError('OPENAPI_INVALID', `${where}: the spec is not an object (an OpenAPI document starts with "openapi: 3.x")`);
  return value as JsonObject;
}

/**
 * A YAML document shares a node through an alias; everything that reads it (the validator, the
 * dereferencer, the converter) walks it again at every use. Its size written out in full is counted
 * (each shared node once, by identity) and must stay within the output budget of its text's size
 * ({@link outputBudget}): an alias bomb is refused before anything walks it.
 */
function checkExpandedSize(where: string, raw: unknown, specSize: number): void {
  const { limit } = outputBudget(where, specSize);
  const sizes = new Map<object, number>();
  const onStack = new Set<object>();
  const size = (value: unknown): number => {
    if (typeof value !== 'object' || value === null) return typeof value === 'string' ? value.length + 2 : 8;
    const known = sizes.get(value);
    if (known !== undefined) return known;
    if (onStack.has(value)) return 2; // a recursive alias: the validator reports it
    onStack.add(value);
    let total = 2;
    for (const [key, child] of Object.entries(value)) {
      total = Math.min(total + key.length + 4 + size(child), Number.MAX_SAFE_INTEGER);
    }
    onStack.delete(value);
    sizes.set(value, total);
    return total;
  };
  const expanded = size(raw);
  if (expanded > limit) {
    throw new CompileError(
      'OPENAPI_TOO_LARGE',
      `${where}: its YAML aliases expand the spec's ${specSize} characters to about ${expanded} (more than ${limit}, ${OUTPUT_PER_SPEC_CHAR} times its size within ${MIN_OUTPUT_CHARS}–${MAX_OUTPUT_CHARS}); a spec that repeats shared nodes this much is refused: give a shared schema a name under components/schemas and refer to it with $ref`,
    );
  }
}

function specVersion(where: string, document: JsonObject): '3.0' | '3.1' {
  const declared = document.openapi;
  if (typeof declared === 'string' && /^3\.0\.\d+/.test(declared)) return '3.0';
  if (typeof declared === 'string' && /^3\.1\.\d+/.test(declared)) return '3.1';
  if (document.swagger !== undefined)
    throw new CompileError(
      'OPENAPI_UNSUPPORTED',
      `${where} at /swagger: Swagger 2.0 is not supported; convert the spec to OpenAPI 3 first (for example with swagger2openapi)`,
    );
  throw new CompileError(
    'OPENAPI_UNSUPPORTED',
    `${where} at /openapi: expected "3.0.x" or "3.1.x" (got ${JSON.stringify(declared) ?? 'nothing'})`,
  );
}

/**
 * Each validation problem with the JSON pointer of its place: where a missing `$ref` is written, or the
 * value the validator's code frame points at (its line in the JSON text of the validated copy), instead
 * of that frame, whose line numbers are not the spec's.
 */
function describeProblems(raw: JsonObject, validated: unknown, errors: readonly { message: string }[]): string {
  const described = errors.map((error) => {
    const missingRef = /Missing \$ref pointer "([^"]+)"/.exec(error.message)?.[1];
    if (missingRef !== undefined) {
      const pointers = findPointers(raw, (node) => node.$ref === missingRef).map((pointer) => `${pointer}/$ref`);
      return pointers.length === 0 ? error.message : `at ${pointers.slice(0, 5).join(', ')}: ${error.message}`;
    }
    const line = /^>\s*(\d+)\s*\|/m.exec(error.message)?.[1];
    const pointer = line === undefined ? undefined : pointerAtLine(validated, Number(line));
    const reason = (error.message.split(/\n\s*\n/)[0] ?? error.message)
      .replace(/^(?:ADDITIONAL PROPERTY|UNEVALUATED PROPERTY|PROPERTY|ENUM|REQUIRED)\s+/, '')
      .replace(/\s*\n\s*/g, ' ')
      .trim();
    return pointer === undefined ? error.message : `at ${pointer === '' ? '(root)' : pointer}: ${reason}`;
  });
  return described.length === 1 ? (described[0] ?? '') : `\n${described.map((problem) => `  - ${problem}`).join('\n')}`;
}
