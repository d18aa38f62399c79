import { CompileError, errorMessage, type CapabilitySource, type CompileWarning } from '../core/index.js';
import type { JsonSchemaCompiler } from '../core/json-schema.js';
import { describeSource, type RawCapability } from './raw-capability.js';

/**
 * Compiles every input and output schema of a source's capabilities with the bridge's ajv setup, so a
 * schema that cannot validate fails the build of its source instead of every call at run time.
 * Returns what ajv ignores (unknown formats) as warnings.
 *
 * @throws CompileError (code `INVALID_SCHEMA`) naming each schema that cannot be compiled and why.
 */
export function checkSchemas(raws: readonly RawCapability[], compile: JsonSchemaCompiler): CompileWarning[] {
  const warnings: CompileWarning[] = [];
  const problems: string[] = [];
  let owner = '';
  for (const raw of raws) {
    const source = describeSource(raw.source);
    owner = sourceLabel(raw.source);
    for (const fn of raw.functions) {
      const schemas = [['inputSchema', fn.inputSchema], ['outputSchema', fn.outputSchema]] as const;
      for (const [keyword, schema] of schemas) {
        if (schema === undefined) continue;
        const label = `tool "${fn.toolName}": ${schemaName(raw.source, keyword)}`;
        try {
          compile(schema, (message) => warnings.push(toWarning(source, fn.toolName, keyword, message)));
        } catch (error) {
          problems.push(`${label} ${errorMessage(error)}`);
        }
      }
    }
  }
  if (problems.length === 1) {
    throw new CompileError('INVALID_SCHEMA', `${owner}: ${problems[0] ?? ''}; fix that schema (this source is not built until it validates)`, { details: { problems } });
  }
  if (problems.length > 1) {
    const list = problems.map((problem) => `  - ${problem}`).join('\n');
    throw new CompileError('INVALID_SCHEMA', `${owner}: ${problems.length} schemas cannot be used to validate calls (this source is not built until they do):\n${list}`, { details: { problems } });
  }
  return warnings;
}

function sourceLabel(source: CapabilitySource): string {
  return source.kind === 'mcp' ? `MCP server "${source.server}"` : describeSource(source);
}

/** The schema as its author named it: `parameters`/`returns` in tool files, MCP's own names otherwise. */
function schemaName(source: CapabilitySource, keyword: 'inputSchema' | 'outputSchema'): string {
  if (source.kind === 'mcp' || source.kind === 'agent') return keyword;
  return keyword === 'inputSchema' ? 'the parameters schema' : 'the returns schema';
}

function toWarning(source: string, toolName: string, keyword: 'inputSchema' | 'outputSchema', message: string): CompileWarning {
  const unknownFormat = /^unknown format "(.*)" ignored in schema at path "#(.*)"$/.exec(message);
  if (unknownFormat === null) return { source, message: `tool "${toolName}": ${keyword}: ${message}` };
  const pointer = `/${keyword}${unknownFormat[2] ?? ''}`;
  return {
    source,
    pointer,
    message: `tool "${toolName}": the schema at ${pointer} has format "${unknownFormat[1] ?? ''}", which is not known; values are not checked against it`,
  };
}
