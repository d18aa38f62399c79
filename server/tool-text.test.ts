// The text shapes a model reads from code mode: search_tools' answer and execute_code's result.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../core/index.js';
import type { SearchToolsResult } from '../space/index.js';
import { describeRun } from './run-result-to-tool.js';
import { searchResultText } from './tool-text.js';

const declaration = [
  "// import { getOrder } from '@capabilities/shop';",
  'export interface GetOrderParams {\n  order_id: string;\n}',
  '/** Get the status and details of an order. */',
  'export declare function getOrder(params: GetOrderParams): Promise<{ status: string }>;',
].join('\n');

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

  it('leaves out of a "full" match what its declaration says: signature, parameters, and a description its doc comment holds', () => {
    const result: SearchToolsResult = {
      query: 'order',
      matches: [
        {
          id: 'shop.getOrder',
          module: 'shop',
          function: 'getOrder',
          score: 3,
          signature: 'getOrder(params: GetOrderParams): Promise<{ status: string }>',
          description: 'Get the status and details of an order.',
          parameters: ['order_id'],
          declaration,
        },
        {
          id: 'shop.cancel',
          module: 'shop',
          function: 'cancel',
          score: 1,
          signature: 'cancel(params: { order_id: string }): Promise<void>',
          description: 'Cancel a pending order (not in the declaration).',
          requiresApproval: true,
          declaration:
            "// import { cancel } from '@capabilities/shop';\nexport declare function cancel(params: { order_id: string }): Promise<void>;",
        },
      ],
      total: 2,
    };
    const parsed = JSON.parse(searchResultText(result)) as SearchToolsResult;
    expect(parsed.matches[0]).toEqual({ id: 'shop.getOrder', module: 'shop', function: 'getOrder', score: 3, declaration });
    expect(parsed.matches[1]).toMatchObject({ description: 'Cancel a pending order (not in the declaration).', requiresApproval: true });
    expect(parsed.matches[1]).not.toHaveProperty('signature');
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
