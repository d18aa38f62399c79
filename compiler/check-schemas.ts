import { createHash } from 'node:crypto';
import {
  CompileError,
  DEFAULT_SCHEMA_NAMES,
  errorMessage,
  type CapabilityOrigin,
  type CompileWarning,
  type JsonSchema,
  type SchemaNames,
} from '../core/index.js';
import { createJsonSchemaCompiler } from '../core/json-schema.js';
import { sourceLabel as describeSource, type RawCapability } from '../core/index.js';
import { checkOutputBudget } from './output-budget.js';

/**
 * Schemas that compiled, by a hash of their JSON text, with what ajv ignored in each (unknown
 * formats). Kept in the manifest, so a rebuild compiles only schemas it has not seen: compiling costs
 * milliseconds per schema, and a space may hold thousands.
 */
export type CheckedSchemas = Record<string, string[]>;

/** How the messages of one source's schema errors name its origins and schemas, as the source declares. */
export interface SchemaWording {
  title(origin: CapabilityOrigin): string;
  schemaNames: SchemaNames;
}

/** Where no source says: an origin's label, a tool file's words. */
const PLAIN_WORDING: SchemaWording = { title: describeSource, schemaNames: DEFAULT_SCHEMA_NAMES };

export interface SchemaChecker {
  /**
   * Compiles every input and output schema of a source's capabilities with the bridge's ajv setup, so
   * a schema that cannot validate fails the build of its source instead of every call at run time.
   * Returns what ajv ignores (unknown formats) as warnings.
   *
   * @throws CompileError (code `INVALID_SCHEMA`) naming each schema that cannot be compiled and why.
   */
  check(raws: readonly RawCapability[], wording?: SchemaWording): CompileWarning[];
  /** Every schema this build found compilable, for the next build. */
  checked(): CheckedSchemas;
}

export function createSchemaChecker(known: CheckedSchemas = {}): SchemaChecker {
  const compile = createJsonSchemaCompiler();
  const checked = new Map<string, string[]>();

  /** ajv's warnings for one schema; throws when it does not compile. */
  const compileOnce = (schema: JsonSchema): string[] => {
    const key = createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 24);
    const cached = checked.get(key) ?? (Object.hasOwn(known, key) ? known[key] : undefined);
    if (cached !== undefined) {
      checked.set(key, cached);
      return cached;
    }
    const heard: string[] = [];
    compile(schema, (message) => heard.push(message));
    checked.set(key, heard);
    return heard;
  };

  return {
    check(raws, wording = PLAIN_WORDING) {
      const warnings: CompileWarning[] = [];
      const problems: string[] = [];
      let owner = '';
      for (const raw of raws) {
        owner = wording.title(raw.source);
        checkOutputBudget(raw, describeSource(raw.source));
        for (const fn of raw.functions) {
          for (const keyword of ['inputSchema', 'outputSchema'] as const) {
            const schema = fn[keyword];
            if (schema === undefined) continue;
            try {
              warnings.push(...compileOnce(schema).map((message) => toWarning(describeSource(raw.source), fn.toolName, keyword, message)));
            } catch (error) {
              const name = keyword === 'inputSchema' ? wording.schemaNames.input : wording.schemaNames.output;
              problems.push(`tool "${fn.toolName}": ${name} ${errorMessage(error)}`);
            }
          }
        }
      }
      if (problems.length === 1) {
        throw new CompileError(
          'INVALID_SCHEMA',
          `${owner}: ${problems[0] ?? ''}; fix that schema (this source is not built until it compiles)`,
          { details: { problems } },
        );
      }
      if (problems.length > 1) {
        const list = problems.map((problem) => `  - ${problem}`).join('\n');
        throw new CompileError(
          'INVALID_SCHEMA',
          `${owner}: ${problems.length} schemas cannot be compiled (this source is not built until they do):\n${list}`,
          { details: { problems } },
        );
      }
      return warnings;
    },
    checked() {
      return Object.fromEntries([...checked.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    },
  };
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
