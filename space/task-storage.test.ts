import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolCallError, type ToolCallContext } from '../core/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { createTaskStorage, TASK_STORAGE_MAX_CHARS, type StoredResult } from './task-storage.js';

const { storage, definition } = createTaskStorage();
const context = (runId: string): ToolCallContext => ({
  runId,
  capability: 'task-storage',
  function: 'read',
  signal: new AbortController().signal,
});
const read = (args: Record<string, unknown>, runId = 'run-1') =>
  (definition.functions.read?.handler as (params: unknown, context: ToolCallContext) => Promise<Record<string, unknown>>)(
    args,
    context(runId),
  );
const list = (runId = 'run-1') =>
  (definition.functions.list?.handler as (params: unknown, context: ToolCallContext) => StoredResult[])({}, context(runId));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof ToolCallError ? { code: error.code, message: error.message } : error),
  );

const rows = Array.from({ length: 5_000 }, (_, i) => ({ id: i, text: 'x'.repeat(90) }));
const results = new Map<string, StoredResult>();
let table: string;
let page: string;
let text: string;

beforeAll(async () => {
  const dir = await makeTempDir('task-storage');
  const store = async (name: string, value: unknown): Promise<string> => {
    const ref = path.join(dir, name);
    const json = JSON.stringify(value);
    await writeFile(ref, json);
    results.set(ref, { ref, label: name, step: results.size + 1, chars: json.length });
    return ref;
  };
  table = await store('table.json', rows);
  page = await store('page.json', { total: rows.length, data: { rows } });
  text = await store('text.json', JSON.stringify({ items: [1, 2, 3] }) + ' '.repeat(10));
  storage.open('run-1', results);
});

describe('task-storage', () => {
  it('pages an array by the character cap, at least one item a page, and ends with nextOffset null', async () => {
    let offset: number | null = 0;
    const seen: unknown[] = [];
    let pages = 0;
    while (offset !== null) {
      const answer = await read({ ref: table, offset });
      expect(JSON.stringify(answer.value).length).toBeLessThanOrEqual(TASK_STORAGE_MAX_CHARS);
      expect(answer).toMatchObject({ kind: 'array', total: 5_000, offset });
      seen.push(...(answer.value as unknown[]));
      offset = answer.nextOffset as number | null;
      pages++;
    }
    expect(pages).toBe(3); // 5,000 rows of ~110 characters: 550,000 characters
    expect(seen).toEqual(rows);
    await expect(read({ ref: table, offset: 4_998, limit: 5 })).resolves.toEqual({
      ref: table,
      path: '',
      kind: 'array',
      value: rows.slice(4_998),
      total: 5_000,
      offset: 4_998,
      nextOffset: null,
    });
  });

  it('reads a part by path, refuses an object over the cap with the keys to choose from', async () => {
    await expect(read({ ref: page, path: 'data.rows.7' })).resolves.toMatchObject({ kind: 'object', value: rows[7] });
    await expect(read({ ref: page, path: 'total' })).resolves.toMatchObject({ kind: 'number', value: 5_000 });
    expect(await failure(read({ ref: page }))).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: expect.stringMatching(
        /^task-storage: the object at path "" is \d+ characters, over the 200000 of one read: read a part of it with path \(keys total: number, data: object\)$/,
      ),
    });
    expect(await failure(read({ ref: page, path: 'data.items' }))).toEqual({
      code: 'INVALID_ARGUMENTS',
      message: 'task-storage: path "data.items": "data" has no "items" (keys rows: array of 5000)',
    });
  });

  it('pages a string by characters, and parses one holding JSON when asked', async () => {
    const raw = await read({ ref: text, limit: 5 });
    expect(raw).toMatchObject({ kind: 'string', value: '{"ite', total: 27, nextOffset: 5 });
    await expect(read({ ref: text, parse: true, path: 'items' })).resolves.toMatchObject({
      kind: 'array',
      value: [1, 2, 3],
      nextOffset: null,
    });
    expect(await failure(read({ ref: table, parse: true }))).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'task-storage: parse: the stored value is array, not a string holding JSON; leave parse out',
    });
  });

  it('serves only refs opened for the calling run, and nothing once the run is closed', async () => {
    expect(list().map((entry) => entry.label)).toEqual(['table.json', 'page.json', 'text.json']);
    expect(await failure(read({ ref: '/etc/passwd' }))).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/^task-storage: "\/etc\/passwd" is not a result stored by this task; its refs: /),
    });
    expect(await failure(read({ ref: `${table}/../table.json` }))).toMatchObject({ code: 'FORBIDDEN' });
    expect(await failure(read({ ref: table }, 'run-2'))).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('it has stored none'),
    });
    expect(list('run-2')).toEqual([]);
    const close = storage.open('run-3', results);
    await expect(read({ ref: table, limit: 1 }, 'run-3')).resolves.toMatchObject({ value: [rows[0]] });
    close();
    expect(await failure(read({ ref: table }, 'run-3'))).toMatchObject({ code: 'FORBIDDEN' });
  });
});
