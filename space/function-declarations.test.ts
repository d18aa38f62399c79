import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpEverythingSpec, specWith, trainScheduleSpec } from '../compiler/__fixtures__/specs.js';
import { emitDeclarations } from '../compiler/declarations/emit-declarations.js';
import type { CapabilitySpec } from '../core/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { typeCheckFiles } from '../test/support/tsc.js';
import { declarationStatements } from './function-declarations.js';

const declarationOf = (spec: CapabilitySpec, name: string): string =>
  declarationStatements(emitDeclarations(spec).dts, name)
    .map((statement) => statement.text)
    .join('\n');

/** A spec whose function nests objects three deep, refers to `$defs` and has a property named like a type. */
function nestedSpec(): CapabilitySpec {
  const entity = {
    type: 'object',
    properties: { name: { type: 'string', description: 'The name' }, tags: { type: 'array', items: { $ref: '#/$defs/tag' } } },
    required: ['name'],
  };
  return specWith('graph', 'graph', [
    {
      name: 'createEntities',
      toolName: 'create_entities',
      description: 'Create entities',
      inputSchema: {
        type: 'object',
        properties: {
          entities: { type: 'array', items: entity },
          options: {
            type: 'object',
            properties: {
              upsert: { type: 'boolean' },
              owner: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
            },
          },
        },
        required: ['entities'],
        $defs: { tag: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } }, required: ['key', 'value'] } },
      },
      outputSchema: {
        type: 'object',
        properties: { created: { type: 'array', items: entity } },
        required: ['created'],
        $defs: { tag: { type: 'string' } },
      },
    },
    {
      name: 'graph',
      toolName: 'graph_other',
      description: 'Shares its name with the namespace',
      inputSchema: { type: 'object', properties: { createEntities: { type: 'string' } } },
    },
  ]);
}

describe('declarationStatements', () => {
  it('gives a function with every type it uses, nested and $ref targets included, docs kept, nothing else', () => {
    expect(declarationOf(nestedSpec(), 'createEntities')).toBe(`export interface CreateEntitiesParams {
  entities: {
    /** The name */
    name: string;
    tags?: CreateEntitiesParamsTag[];
  }[];
  options?: {
    upsert?: boolean;
    owner?: {
      id: string;
    };
  };
}
export interface CreateEntitiesParamsTag {
  key: string;
  value: string;
}
export interface CreateEntitiesResult {
  created: {
    /** The name */
    name: string;
    tags?: CreateEntitiesResultTag[];
  }[];
}
export type CreateEntitiesResultTag = string;
/** Create entities */
export declare function createEntities(params: CreateEntitiesParams): Promise<CreateEntitiesResult>;`);
  });

  it('gives an MCP text function its .full() result types', () => {
    const echo = declarationOf(mcpEverythingSpec(['echo']), 'echo');
    expect(echo).toContain('export declare const echo: {');
    expect(echo).toContain('export interface McpCallResult {');
    expect(echo).toContain('export type McpContentBlock = ');
    expect(declarationOf(mcpEverythingSpec(['echo']), 'nothing')).toBe('');
  });

  it('every slice type-checks on its own under --strict, so no type it needs is left out', async () => {
    const dir = await makeTempDir('declarations');
    const files: string[] = [];
    for (const spec of [nestedSpec(), trainScheduleSpec(), mcpEverythingSpec()]) {
      for (const fn of spec.functions) {
        const file = path.join(dir, `${spec.module}-${fn.name}.d.ts`);
        await writeFile(file, `${declarationOf(spec, fn.name)}\nexport {};\n`);
        files.push(file);
      }
    }
    expect(files.length).toBeGreaterThan(10);
    expect(typeCheckFiles(files)).toEqual([]);
  }, 120_000);
});
