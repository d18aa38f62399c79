import { CompileError, MAX_WRITTEN_SCHEMA_CHARS, jsonWrittenSize, type RawCapability } from '../core/index.js';

/**
 * Fails a capability whose functions would be written out past `limit` characters of JSON (the build
 * writes them to `schema.json` and the manifest), before anything writes them out: schemas that share
 * objects are repeated by JSON at every use. OpenAPI specs meet their own, tighter budget first
 * (sources/openapi/convert-schema.ts).
 *
 * @throws CompileError naming the capability and its source
 */
export function checkOutputBudget(raw: RawCapability, source: string, limit = MAX_WRITTEN_SCHEMA_CHARS): void {
  if (jsonWrittenSize(raw.functions, limit) <= limit) return;
  throw new CompileError(
    'OUTPUT_TOO_LARGE',
    `${source}: capability "${raw.name}" would be written out as more than ${limit} characters of schemas (its schemas share objects, which JSON repeats at every use); give a shared schema a name in $defs and refer to it with $ref`,
  );
}
