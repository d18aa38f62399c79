// The text shapes a model reads from code mode: search_tools' answer and execute_code's result.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_LAYOUT, type RunResult } from '../core/index.js';
import { addDeclarations, type SearchToolsResult } from '../space/index.js';
import { describeRun } from './run-result-to-tool.js';
import { searchResultText } from './tool-text.js';

describe('searchResultText', () => {
  it('is compact JSON that parses back to the search result when no match carries a declaration', () => {
    const result: SearchToolsResult = {
      query: 'order',
      matches: [
        {
          id: 'shop.getOrder',
          module: 'shop',
          function: 'getOrder',
          score: 3,
          signature: 'getOrder(params: { order_id: string }): Promise<{ status: string }>',
          description: 'Get an order.',
        },
      ],
      total: 1,
    };
    const text = searchResultText(result);
    expect(text).not.toContain('\n');
    expect(JSON.parse(text)).toEqual(result);
  });

  it('leaves out of a "full" match what its declaration says: signature, parameters, and a description its doc comment holds', async () => {
    const outDir = await mkdtemp(path.join(tmpdir(), 'search-text-'));
    try {
      const file = path.join(outDir, BUILD_LAYOUT.capabilitiesDir, 'shop', BUILD_LAYOUT.moduleFiles.declarations);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(
        file,
        [
          'export interface GetOrderParams {\n  order_id: string;\n}',
          '/** Get the status and details of an order. */',
          'export declare function getOrder(params: GetOrderParams): Promise<{ status: string }>;',
          'export declare function cancel(params: { order_id: string }): Promise<void>;',
        ].join('\n'),
      );
      const match = (name: string, description: string) => ({
        id: `shop.${name}`,
        module: 'shop',
        function: name,
        score: 1,
        signature: `${name}(params: { order_id: string }): Promise<unknown>`,
        description,
        parameters: ['order_id'],
      });
      const full = await addDeclarations(
        {
          query: 'order',
          matches: [match('getOrder', 'Get the status and details of an order.'), match('cancel', 'Cancel a pending order.')],
          total: 2,
        },
        outDir,
      );
      const parsed = JSON.parse(searchResultText(full)) as SearchToolsResult;
      expect(Object.keys(parsed.matches[0] ?? {}).sort()).toEqual(['declaration', 'function', 'id', 'module', 'score']);
      expect(parsed.matches[0]?.declaration).toContain('export declare function getOrder(params: GetOrderParams)');
      // Not in the declaration's doc comment: the description stays.
      expect(parsed.matches[1]).toMatchObject({ description: 'Cancel a pending order.' });
      expect(parsed.matches[1]).not.toHaveProperty('signature');
      expect(parsed.matches[1]?.declaration).toContain('export declare function cancel(');
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  });
});

describe('describeRun', () => {
  const run = (result: unknown): RunResult => ({ success: true, result, logs: [], timedOut: false, calls: 2, durationMs: 12.4 });

  it('shows the result as compact JSON, then the calls and time', () => {
    expect(describeRun(run({ order: { id: '#W1', items: [1, 2] } }))).toBe(
      'Result: {"order":{"id":"#W1","items":[1,2]}}\n(2 capability calls, 12 ms)',
    );
  });

  it('keeps strings unambiguous (quoted and escaped) and says undefined when nothing was exported', () => {
    expect(describeRun(run('a "b"\nc'))).toBe('Result: "a \\"b\\"\\nc"\n(2 capability calls, 12 ms)');
    expect(describeRun(run(undefined))).toBe('Result: undefined\n(2 capability calls, 12 ms)');
  });
});
