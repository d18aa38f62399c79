// The bridge's side of inferred result types: which text results are learned from, how a function with
// an inferred type gets its parsed value, and drift reported (not failed) with the stored type widened.
// The backend is a real `Backend` answering with the text an MCP text tool would give.
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend, BridgeEvent, CallContext, CapabilitySpec, FunctionSpec, ResultDriftEvent } from '../../core/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createBridge } from '../create-bridge.js';
import { createResultRecorder } from './result-recorder.js';
import { inferSchema } from './infer-schema.js';

const context: CallContext = { runId: 'run-1', signal: new AbortController().signal };

function textFunction(toolName: string, extra: Partial<FunctionSpec> = {}): FunctionSpec {
  return {
    name: toolName.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
    toolName,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    resultKind: 'mcp-text',
    ...extra,
  };
}

function shop(functions: FunctionSpec[]): CapabilitySpec {
  return { module: 'mcp-shop', namespace: 'shop', source: { kind: 'mcp', server: 'shop' }, config: {}, functions };
}

/** Answers every call with the text it was given (`args.text`), as an MCP text tool's joined content. */
const echoBackend: Backend = {
  call: async (call) => (call.resultMode === 'full' ? { content: [{ type: 'text', text: call.args.text }] } : call.args.text),
  close: async () => undefined,
};

async function setup(functions: FunctionSpec[], options: { learn?: boolean } = {}) {
  const outDir = await makeTempDir('observe');
  const events: BridgeEvent[] = [];
  const bridge = createBridge({
    capabilities: [shop(functions)],
    backends: { 'mcp-shop': echoBackend },
    onEvent: (event) => events.push(event),
    ...(options.learn === false ? {} : { learnResultTypes: { outDir } }),
  });
  const call = (fn: string, text: string, resultMode?: 'full') =>
    bridge.handle({ capability: 'mcp-shop', function: fn, args: { text }, ...(resultMode ? { resultMode } : {}) }, context);
  const store = async () => {
    await bridge.close();
    const file = path.join(outDir, 'inferred/mcp-shop.json');
    return existsSync(file)
      ? (JSON.parse(await readFile(file, 'utf8')) as Record<string, { samples: number; sources: string[]; schema: unknown }>)
      : {};
  };
  const drifts = () => events.filter((event): event is ResultDriftEvent => event.type === 'result-drift');
  return { call, store, drifts, outDir };
}

describe('text results and inferred types in the bridge', () => {
  it('returns text as text until a type is learned, and records JSON objects and arrays only', async () => {
    const { call, store } = await setup([textFunction('list_products'), textFunction('get_note')]);
    expect(await call('listProducts', '{"items":[{"id":1}]}')).toBe('{"items":[{"id":1}]}');
    expect(await call('listProducts', '{"items":[]}')).toBe('{"items":[]}');
    expect(await call('getNote', 'just words')).toBe('just words');
    expect(await call('getNote', '42')).toBe('42');
    const stored = await store();
    expect(Object.keys(stored)).toEqual(['list_products']);
    expect(stored.list_products).toMatchObject({ samples: 2, sources: ['run'] });
    expect(stored.list_products?.schema).toEqual(inferSchema({ items: [{ id: 1 }] }));
  });

  it('never records a tool marked as having side effects, a full-mode call, or without a store', async () => {
    const marked = await setup([textFunction('delete_product', { effects: 'side-effects' }), textFunction('list_products')]);
    await marked.call('deleteProduct', '{"deleted":true}');
    await marked.call('listProducts', '{"a":1}', 'full');
    expect(await marked.store()).toEqual({});
    const unstored = await setup([textFunction('list_products')], { learn: false });
    await unstored.call('listProducts', '{"a":1}');
    expect(existsSync(path.join(unstored.outDir, 'inferred'))).toBe(false);
  });

  it('parses the text of a function with an inferred type, and reports drift without failing the call', async () => {
    const schema = inferSchema({ items: [{ name: 'a' }], total: 1 });
    const { call, store, drifts } = await setup([
      textFunction('list_products', { inferredResult: { schema, samples: 1, sources: ['sample'] } }),
    ]);
    expect(await call('listProducts', '{"items":[{"name":"b"}],"total":2}')).toEqual({ items: [{ name: 'b' }], total: 2 });
    expect(drifts()).toEqual([]);

    expect(await call('listProducts', '{"items":[{"name":"c","token":"s3cr3t"}],"total":"many"}')).toEqual({
      items: [{ name: 'c', token: 's3cr3t' }],
      total: 'many',
    });
    expect(drifts()).toHaveLength(1);
    const drift = drifts()[0] as ResultDriftEvent;
    expect(drift).toMatchObject({ callId: 'call-2', runId: 'run-1', capability: 'mcp-shop', function: 'listProducts' });
    expect(drift.issues.map((issue) => issue.path).sort()).toEqual(['items[0].token', 'total']);
    expect(drift.message).toContain('mcp-shop.listProducts returned a result unlike its inferred type');
    expect(drift.message).toContain('its stored type was widened');

    expect(await call('listProducts', 'Service unavailable')).toBe('Service unavailable');
    expect(drifts()[1]?.message).toContain(
      'result is not JSON text any more); the call succeeded with the text; its stored type was not changed',
    );

    const stored = await store();
    expect(stored.list_products?.samples).toBe(2); // the two JSON results; the prose taught nothing
    expect(stored.list_products?.schema).toEqual({
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, token: { type: 'string' } },
            required: ['name'],
            additionalProperties: false,
          },
        },
        total: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
      required: ['items', 'total'],
      additionalProperties: false,
    });
    expect(JSON.stringify(stored)).not.toContain('s3cr3t');
  });
});

describe('hostile text results', () => {
  it('reports an inferred schema ajv refuses (a hand-edited store) as drift, and still answers', async () => {
    const { call, drifts } = await setup([
      textFunction('list_products', { inferredResult: { schema: { type: 'no-such-type' }, samples: 1, sources: ['run'] } }),
    ]);
    expect(await call('listProducts', '{"a":1}')).toEqual({ a: 1 });
    expect(drifts()[0]?.message).toContain('its inferred schema is not usable');
  });

  it('survives text nested past any parser or cap, learning at most a capped shape', async () => {
    const { call, store } = await setup([textFunction('list_products')]);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`; // under the 256 KiB cap
    expect(await call('listProducts', deep)).toBe(deep);
    const stored = await store();
    const text = JSON.stringify(stored.list_products?.schema ?? {});
    expect(text.length).toBeLessThan(2_000);
  });
});

describe('createResultRecorder', () => {
  it('merges into what is stored (another process\'s lessons are kept), and keeps a tool named "__proto__" as a key', async () => {
    const outDir = await makeTempDir('recorder');
    const first = createResultRecorder({ outDir, now: () => new Date('2026-01-01T00:00:00Z') });
    first.record('mcp-shop', 'list', { a: 1 }, 'sample');
    first.record('mcp-shop', '__proto__', [true], 'run');
    await first.flush();
    const second = createResultRecorder({ outDir });
    second.record('mcp-shop', 'list', { b: 'x' }, 'run');
    await second.flush();
    const stored = JSON.parse(await readFile(path.join(outDir, 'inferred/mcp-shop.json'), 'utf8')) as Record<
      string,
      { samples: number; sources: string[]; schema: unknown }
    >;
    expect(Object.keys(stored).sort()).toEqual(['__proto__', 'list']);
    // Neither key was in both samples, so neither is required.
    expect(stored.list).toMatchObject({
      samples: 2,
      sources: ['run', 'sample'],
      schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string' } }, additionalProperties: false },
    });
    expect(stored.list?.schema).not.toHaveProperty('required');
  });

  it('ignores a module name that could leave the folder, and a store file that is not one', async () => {
    const outDir = await makeTempDir('recorder');
    const recorder = createResultRecorder({ outDir });
    recorder.record('../escape', 'x', { a: 1 }, 'run');
    await recorder.flush();
    expect(existsSync(path.join(outDir, '..', 'escape.json'))).toBe(false);
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    await writeFile(path.join(outDir, 'inferred/mcp-shop.json'), '{"list": {"schema": "not a schema"}, "ok": 5}');
    recorder.record('mcp-shop', 'list', { a: 1 }, 'run');
    await recorder.flush();
    const stored = JSON.parse(await readFile(path.join(outDir, 'inferred/mcp-shop.json'), 'utf8')) as Record<string, { samples: number }>;
    expect(Object.keys(stored)).toEqual(['list']);
    expect(stored.list?.samples).toBe(1);
  });

  it('says why a write failed when flushed', async () => {
    const outDir = await makeTempDir('recorder');
    await writeFile(path.join(outDir, 'inferred'), 'a file where the folder should be');
    const recorder = createResultRecorder({ outDir });
    recorder.record('mcp-shop', 'list', { a: 1 }, 'run');
    await expect(recorder.flush()).rejects.toThrow(/EEXIST|ENOTDIR/);
  });
});
