import { describe, expect, it } from 'vitest';
import { CompileError } from '../../core/index.js';
import type { RawCapability } from '../../core/index.js';
import { loadJsonToolFile } from './json-file.js';

const FILE = 'tools/crm.json';

/** The one tool a file holds. */
async function load(data: unknown): Promise<RawCapability> {
  const raws = await loadJsonToolFile(FILE, { text: JSON.stringify(data) });
  expect(raws).toHaveLength(1);
  return raws[0] as RawCapability;
}

async function failure(data: unknown): Promise<string> {
  const error: unknown = await load(data).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof CompileError)) throw new Error(`expected a CompileError, got ${String(error)}`);
  expect(error.code).toBe('INVALID_TOOL_FILE');
  return error.message;
}

const seed = (functions: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'crm', functions, ...extra });

describe('loadJsonToolFile — every key is checked', () => {
  it('names a misplaced approval flag on a function and where it belongs', async () => {
    expect(await failure(seed([{ name: 'search' }, { name: 'deleteCustomer', config: { requiresApproval: true } }]))).toBe(
      "tools/crm.json: functions[1].config.requiresApproval is not a function key; requiresApproval goes on the function itself (functions[1].requiresApproval) or on the file's top-level config",
    );
  });

  it('suggests the key a typo means, at every level', async () => {
    const message = await failure(
      seed([{ name: 'deleteCustomer', requiresAproval: true }], {
        descripton: 'x',
        config: { requireApproval: true, rateLimit: { requests: 1, perod: 'minute' } },
      }),
    );
    expect(message.split('\n')).toEqual([
      'tools/crm.json:',
      '  - descripton is not a top-level key; did you mean description? (top-level keys: name, implementation, description, version, functions, config)',
      '  - functions[0].requiresAproval is not a function key; did you mean functions[0].requiresApproval? (function keys: name, description, parameters, returns, requiresApproval, approvalMessage, callers)',
      '  - config.requireApproval is not a config key; did you mean config.requiresApproval? (config keys: requiresApproval, rateLimit, callers)',
      '  - config.rateLimit.perod is not a rateLimit key; did you mean config.rateLimit.period? (rateLimit keys: requests, period, onLimit, maxWaitMs, maxQueue)',
      '  - config.rateLimit.period: Invalid option: expected one of "second"|"minute"|"hour"|"day"',
    ]);
  });

  it('says where an approval flag on the top level of a file with functions goes', async () => {
    expect(await failure(seed([{ name: 'a' }], { requiresApproval: true }))).toBe(
      'tools/crm.json: requiresApproval is not a top-level key; requiresApproval goes in config (config.requiresApproval) to cover every function, or on one function (functions[i].requiresApproval)',
    );
    expect(await failure(seed([{ name: 'a' }], { config: { approvalMessage: 'Delete {id}?' } }))).toBe(
      'tools/crm.json: config.approvalMessage is not a config key; approvalMessage goes on a function (functions[i].approvalMessage)',
    );
  });

  it('checks OpenAI-style tools and their {type: "function"} wrapper', async () => {
    expect(await failure({ name: 'w', parameters: { type: 'object' }, requires_approval: true })).toMatch(
      /^tools\/crm\.json: requires_approval is not a top-level key; did you mean requiresApproval\?/,
    );
    expect(await failure({ type: 'function', function: { name: 'w' }, requiresApproval: true })).toBe(
      'tools/crm.json: requiresApproval is not a {"type": "function"} wrapper key; requiresApproval goes inside function (function.requiresApproval)',
    );
    expect(await failure({ type: 'function', function: { name: 'w', rateLimit: { requests: 1, period: 'hour' } } })).toBe(
      'tools/crm.json: function.rateLimit is not a top-level key; rateLimit goes in config (function.config.rateLimit)',
    );
  });

  it('reports wrong value types with the key checks, and a file in none of the formats in words', async () => {
    expect(await failure(seed([{ name: 'a', requiresApproval: 'yes' }]))).toMatch(
      /functions\[0\]\.requiresApproval: Invalid input: expected boolean, received string/,
    );
    expect(await failure({ description: 'no name' })).toBe(
      'tools/crm.json: name: Invalid input: expected string, received undefined\n(a tool is {"name", "functions": [...]}, {"name", "description", "parameters"} or {"type": "function", "function": {...}}; a file holds one tool or an array of them)',
    );
  });

  it('names the tool of an array that is wrong by its index, and refuses an empty array', async () => {
    const message = await failure([{ name: 'a' }, { name: 'b', requires_approval: true }]);
    expect(message).toMatch(/^tools\/crm\.json: \[1\]: requires_approval is not a top-level key; did you mean requiresApproval\?/);
    expect(await failure([])).toMatch(/^tools\/crm\.json: holds an empty array; list one tool or more/);
    expect(await failure([{ name: 'a' }, 5])).toMatch(/^tools\/crm\.json: \[1\]: holds 5, not a tool/);
  });
});

describe('loadJsonToolFile — what it accepts', () => {
  it('takes an approval flag and message on an OpenAI-style tool, which is its own one function', async () => {
    const raw = await load({
      type: 'function',
      function: {
        name: 'drop_table',
        parameters: { type: 'object', properties: { table: { type: 'string' } } },
        requiresApproval: true,
        approvalMessage: 'Drop {table}?',
        strict: true,
      },
    });
    expect(raw.functions).toEqual([
      {
        toolName: 'drop_table',
        inputSchema: { type: 'object', properties: { table: { type: 'string' } } },
        resultKind: 'value',
        requiresApproval: true,
        approvalMessage: 'Drop {table}?',
      },
    ]);
  });

  it('takes an array of tools in any of the formats, each its own capability', async () => {
    const raws = await loadJsonToolFile(FILE, {
      text: JSON.stringify([
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        },
        { name: 'search', description: 'Search', implementation: './impl/search.ts' },
        { name: 'crm', functions: [{ name: 'listTickets' }] },
      ]),
    });
    expect(raws.map((raw) => [raw.name, raw.functions.map((fn) => fn.toolName), raw.source])).toEqual([
      ['get_weather', ['get_weather'], { kind: 'json', path: FILE }],
      ['search', ['search'], { kind: 'json', path: FILE, implementation: './impl/search.ts' }],
      ['crm', ['listTickets'], { kind: 'json', path: FILE }],
    ]);
  });

  it('keeps a result schema with properties but no type as written', async () => {
    const raw = await load({ name: 'x', returns: { properties: { ok: { type: 'boolean' } } } });
    expect(raw.functions[0]?.outputSchema).toEqual({ properties: { ok: { type: 'boolean' } } });
  });
});
