import { describe, expect, it } from 'vitest';
import { buildCatalog, type Catalog } from '../compiler/index.js';
import type { CapabilitySpec } from '../core/index.js';
import { searchTools, tokenize } from './search-tools.js';

function spec(
  module: string,
  namespace: string,
  functions: [string, string, string[]][],
  source: CapabilitySpec['source'] = { kind: 'json', path: `tools/${module}.json` },
): CapabilitySpec {
  return {
    module,
    namespace,
    source,
    config: {},
    functions: functions.map(([name, description, params]) => ({
      name,
      toolName: name,
      description,
      inputSchema: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
      resultKind: 'value',
    })),
  };
}

const catalog: Catalog = buildCatalog([
  spec('train-schedule', 'trainSchedule', [
    ['getSchedule', 'Get all scheduled trains. Filter by station.', ['station', 'date']],
    ['getTrainDetails', 'Get details for a specific train', ['trainId']],
  ]),
  spec('crm', 'crm', [
    ['searchCustomers', 'Search for customers by name', ['query', 'limit']],
    ['createTicket', 'Create a support ticket', ['customerId', 'subject']],
  ]),
  spec('get-weather', 'getWeather', [['getWeather', 'Current weather for a location', ['location', 'unit']]]),
]);

describe('searchTools', () => {
  it("ranks the space's own functions before the standard library's for the same words, and lists its own modules first", () => {
    const space = buildCatalog([
      spec('std-fs', 'fs', [['readFile', 'Read a file of the workspace', ['path']]], { kind: 'std' }),
      spec('task-storage', 'taskStorage', [['readStored', 'Read a stored result in pages', ['ref']]], { kind: 'std' }),
      spec('reports', 'reports', [['readFile', 'Read a file of the reports folder', ['path']]]),
    ]);
    const result = searchTools(space, 'read file', { detailLevel: 'names' });
    expect(result.matches.map((match) => match.id)).toEqual(['reports.readFile', 'std-fs.readFile', 'task-storage.readStored']);
    expect(searchTools(space, '').modules?.map((entry) => entry.module)).toEqual(['reports', 'std-fs', 'task-storage']);
    expect(space.functions.find((entry) => entry.module === 'std-fs')?.standard).toBe(true);
    expect(space.functions.find((entry) => entry.module === 'reports')?.standard).toBeUndefined();
  });

  it('ranks name hits above description hits, deterministically', () => {
    const result = searchTools(catalog, 'train schedule', { detailLevel: 'names' });
    expect(result.matches.map((m) => m.id)).toEqual(['train-schedule.getSchedule', 'train-schedule.getTrainDetails']);
    expect(searchTools(catalog, 'train schedule', { detailLevel: 'names' })).toEqual(result);
  });

  it('finds by parameter names and prefixes', () => {
    expect(searchTools(catalog, 'location', { detailLevel: 'names' }).matches[0]?.id).toBe('get-weather.getWeather');
    expect(searchTools(catalog, 'ticket', { detailLevel: 'names' }).matches[0]?.id).toBe('crm.createTicket');
    expect(searchTools(catalog, 'customer', { detailLevel: 'names' }).matches[0]?.id).toBe('crm.searchCustomers');
  });

  it('returns only what the detail level asks for', () => {
    const [names] = searchTools(catalog, 'weather', { detailLevel: 'names' }).matches;
    expect(names).toEqual({ id: 'get-weather.getWeather', module: 'get-weather', function: 'getWeather', score: expect.any(Number) });
    const [summary] = searchTools(catalog, 'weather', { detailLevel: 'summary' }).matches;
    expect(summary?.signature).toBe('getWeather(params?: { location?: string; unit?: string }): Promise<unknown>');
    expect(summary?.parameters).toBeUndefined();
    const [full] = searchTools(catalog, 'weather', { detailLevel: 'full' }).matches;
    expect(full?.parameters).toEqual(['location', 'unit']);
  });

  it('lists the modules for an empty query and honours the limit', () => {
    const empty = searchTools(catalog, '  ');
    expect(empty.modules?.map((m) => m.module)).toEqual(['train-schedule', 'crm', 'get-weather']);
    expect(empty.matches).toEqual([]);
    expect(searchTools(catalog, 'get', { limit: 1 }).matches.length).toBeLessThanOrEqual(1);
    expect(searchTools(catalog, 'zebra').matches).toEqual([]);
  });

  it('tokenizes camelCase, kebab, snake and dotted names', () => {
    expect(tokenize('getTrainDetails API-get-user a_b.cd HTTPServer')).toEqual(['train', 'details', 'api', 'user', 'cd', 'http', 'server']);
  });
});

describe('searchTools with functions named in the query', () => {
  // Names sharing words with other functions: a word-by-word ranking put createTicket's neighbours first.
  const named = buildCatalog([
    spec('retail', 'retail', [
      ['findUserIdByNameZip', 'Find user id by first name, last name, and zip code.', ['first_name', 'last_name', 'zip']],
      ['getOrderDetails', 'Get the status and details of an order.', ['order_id']],
      ['getProductDetails', 'Get the inventory details of a product.', ['product_id']],
      [
        'exchangeDeliveredOrderItems',
        'Exchange items in a delivered order to new items of the same product type.',
        ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
      ],
      [
        'modifyPendingOrderItems',
        'Modify items in a pending order to new items of the same product type.',
        ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
      ],
      ['returnDeliveredOrderItems', 'Return some items of a delivered order.', ['order_id', 'item_ids', 'payment_method_id']],
      ['cancelPendingOrder', 'Cancel a pending order.', ['order_id', 'reason']],
    ]),
  ]);

  it('returns every function the query names, by function name, tool name or id, before word matches', () => {
    const result = searchTools(named, 'findUserIdByNameZip getOrderDetails retail.getProductDetails exchangeDeliveredOrderItems', {
      detailLevel: 'names',
      limit: 4,
    });
    expect(result.matches.map((m) => m.id).sort()).toEqual([
      'retail.exchangeDeliveredOrderItems',
      'retail.findUserIdByNameZip',
      'retail.getOrderDetails',
      'retail.getProductDetails',
    ]);
    // Without exact names, words still rank as before.
    expect(searchTools(named, 'exchange delivered items', { detailLevel: 'names', limit: 1 }).matches.map((m) => m.id)).toEqual([
      'retail.exchangeDeliveredOrderItems',
    ]);
  });
});
