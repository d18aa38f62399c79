import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../config/index.js';
import type { CapabilitySpec, FunctionSpec, InferredResultsFile } from '../core/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { emitDeclarations } from './declarations/emit-declarations.js';
import { applyInferredResults } from './inferred-results.js';
import { formatSignature } from './signature.js';

function fn(toolName: string, extra: Partial<FunctionSpec> = {}): FunctionSpec {
  return { name: toolName, toolName, inputSchema: { type: 'object', properties: {} }, resultKind: 'mcp-text', ...extra };
}

const schema = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
    },
    next: { anyOf: [{ type: 'null' }, { type: 'string' }] },
  },
  required: ['items'],
  additionalProperties: false,
};

async function spaceWithStore(store: InferredResultsFile) {
  const outDir = await makeTempDir('inferred-build');
  await mkdir(path.join(outDir, 'inferred'), { recursive: true });
  await writeFile(path.join(outDir, 'inferred/mcp-shop.json'), JSON.stringify(store));
  const config = { outDir } as unknown as ResolvedConfig;
  const spec: CapabilitySpec = {
    module: 'mcp-shop',
    namespace: 'shop',
    source: { kind: 'mcp', server: 'shop' },
    config: {},
    // `effects` as the MCP source's discovery decides them (sources/mcp/tool-effects.ts).
    functions: [
      fn('list', { annotations: { readOnlyHint: true }, effects: 'read-only' }),
      fn('drop', { annotations: { destructiveHint: true }, effects: 'side-effects' }),
      fn('typed', { resultKind: 'mcp-structured', outputSchema: { type: 'object' } }),
    ],
  };
  return { config, spec };
}

const entry = { schema, samples: 3, sources: ['run', 'sample'] as ('run' | 'sample')[], updatedAt: '2026-01-01T00:00:00.000Z' };

describe('applyInferredResults', () => {
  it('puts the stored type into text functions; never into one with side effects', async () => {
    const { config, spec } = await spaceWithStore({ list: entry, drop: entry, typed: entry });
    const [applied] = await applyInferredResults([spec], config);
    const byName = new Map(applied?.functions.map((f) => [f.name, f]));
    expect(byName.get('list')).toMatchObject({ effects: 'read-only', inferredResult: { schema, samples: 3, sources: ['run', 'sample'] } });
    expect(byName.get('list')?.inferredResult).not.toHaveProperty('updatedAt'); // the spec's hash must not change with the clock
    expect(byName.get('drop')).toMatchObject({ effects: 'side-effects' });
    expect(byName.get('drop')).not.toHaveProperty('inferredResult');
    expect(byName.get('typed')).toEqual(spec.functions[2]);
  });

  it('drops a stored type once the tool is found to have side effects', async () => {
    const { config, spec } = await spaceWithStore({ list: entry });
    const [applied] = await applyInferredResults(
      [{ ...spec, functions: [{ ...(spec.functions[0] as FunctionSpec), effects: 'side-effects' }] }],
      config,
    );
    expect(applied?.functions[0]).toMatchObject({ effects: 'side-effects' });
    expect(applied?.functions[0]).not.toHaveProperty('inferredResult');
  });

  it('leaves specs alone when there is no store', async () => {
    const { config, spec } = await spaceWithStore({});
    const [applied] = await applyInferredResults([spec], config);
    expect(applied?.functions[0]).toEqual(spec.functions[0]);
  });
});

describe('declarations of an inferred result type', () => {
  it('declares the learned type, says it was inferred and from how much, and keeps .full()', async () => {
    const { config, spec } = await spaceWithStore({ list: entry });
    const [applied] = await applyInferredResults([{ ...spec, functions: [spec.functions[0] as FunctionSpec] }], config);
    const { dts, warnings } = emitDeclarations(applied as CapabilitySpec);
    expect(warnings).toEqual([]);
    expect(dts.slice(dts.indexOf('export interface ListParams'))).toMatchInlineSnapshot(`
      "export interface ListParams {
        [key: string]: never;
      }
      export interface ListResult {
        items: {
          name: string;
        }[];
        next?: null | string;
      }
      export declare const list: {
        /**
         * Resolves to the text content of the result parsed as JSON; \`.full()\` resolves to every content block.
         * @remarks Result type inferred from 3 observed results (calls and agent-spaces capabilities sample; no outputSchema declared); may be incomplete.
         */
        (params?: ListParams): Promise<ListResult>;
        /** The whole MCP result: every content block (text, images, audio, resources) and any structured content. */
        full(params?: ListParams): Promise<McpCallResult>;
      };

      export declare const shop: {
        list: typeof list;
      };
      export default shop;
      "
    `);
    expect(formatSignature(applied?.functions[0] as FunctionSpec)).toBe(
      'list(params?: {}): Promise<{ items: { … }[]; next?: null | string }>',
    );
  });
});
