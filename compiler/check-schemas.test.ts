import { afterEach, describe, expect, it, vi } from 'vitest';
import { CompileError, type CapabilityOrigin, type JsonSchema } from '../core/index.js';
import { createSchemaChecker } from './check-schemas.js';
import type { RawCapability } from '../core/index.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function raw(source: CapabilityOrigin, schemas: Record<string, { input: JsonSchema; output?: JsonSchema }>): RawCapability {
  return {
    name: 'x',
    source,
    config: {},
    functions: Object.entries(schemas).map(([toolName, { input, output }]) => ({
      toolName,
      inputSchema: input,
      ...(output === undefined ? {} : { outputSchema: output }),
      resultKind: 'value' as const,
    })),
  };
}

function failure(run: () => unknown): CompileError {
  try {
    run();
  } catch (error) {
    if (error instanceof CompileError) return error;
    throw error;
  }
  throw new Error('no error');
}

const JSON_SOURCE: CapabilityOrigin = { kind: 'json', path: 'tools/search.json' };

describe('createSchemaChecker', () => {
  it('fails a source whose schema ajv cannot compile, naming the tool, the schema and why', () => {
    const error = failure(() =>
      createSchemaChecker().check([raw(JSON_SOURCE, { search: { input: { type: 'object', properties: { q: { type: 'strin' } } } } })]),
    );
    expect(error.code).toBe('INVALID_SCHEMA');
    expect(error.message).toBe(
      'tools/search.json: tool "search": the parameters schema is not a valid JSON Schema (draft-07): at /properties/q/type must be equal to one of the allowed values ("array", "boolean", "integer", "null", "number", "object", "string"); fix that schema (this source is not built until it compiles)',
    );
  });

  it("lists every schema of a source that cannot be compiled, in the source's own words (an MCP server's)", () => {
    // What the MCP source declares (sources/mcp/mcp-source.ts: title, schemaNames).
    const mcpWording = {
      title: (origin: CapabilityOrigin) => `MCP server "${'server' in origin ? origin.server : ''}"`,
      schemaNames: { input: 'inputSchema', output: 'outputSchema' },
    };
    const error = failure(() =>
      createSchemaChecker().check(
        [
          raw(
            { kind: 'mcp', server: 'files' },
            {
              read: { input: { type: 'object', properties: { path: { $ref: '#/$defs/path' } } } },
              grep: { input: { type: 'object' }, output: { type: 'object', properties: { line: { type: 'string', pattern: '([a-z' } } } },
              fine: { input: { type: 'object' } },
            },
          ),
        ],
        mcpWording,
      ),
    );
    expect(error.message.split('\n')).toEqual([
      'MCP server "files": 2 schemas cannot be compiled (this source is not built until they do):',
      '  - tool "read": inputSchema cannot be compiled: can\'t resolve reference #/$defs/path from id #',
      expect.stringMatching(/^ {2}- tool "grep": outputSchema cannot be compiled: Invalid regular expression: /),
    ]);
  });

  it('turns an unknown format into a warning with a pointer, printing nothing', () => {
    const spies = (['log', 'warn', 'error'] as const).map((method) => vi.spyOn(console, method).mockImplementation(() => undefined));
    const warnings = createSchemaChecker().check([
      raw(JSON_SOURCE, { plan: { input: { type: 'object', properties: { when: { type: 'string', format: 'fiscal-quarter' } } } } }),
    ]);
    expect(warnings).toEqual([
      {
        source: 'tools/search.json',
        pointer: '/inputSchema/properties/when',
        message:
          'tool "plan": the schema at /inputSchema/properties/when has format "fiscal-quarter", which is not known; values are not checked against it',
      },
    ]);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it('remembers what compiled (with its warnings), so the next build compiles only new schemas', () => {
    const schema = { type: 'object', properties: { when: { type: 'string', format: 'fiscal-quarter' } } };
    const first = createSchemaChecker();
    first.check([raw(JSON_SOURCE, { plan: { input: schema } })]);
    const checked = first.checked();
    expect(Object.values(checked)).toEqual([['unknown format "fiscal-quarter" ignored in schema at path "#/properties/when"']]);
    // A checker that trusts a hash does not compile that schema again: proven with a hash it was told is fine.
    const [hash] = Object.keys(checked);
    const next = createSchemaChecker({ [hash ?? '']: [] });
    expect(next.check([raw(JSON_SOURCE, { plan: { input: schema } })])).toEqual([]);
    expect(next.checked()).toEqual({ [hash ?? '']: [] });
  });
});
