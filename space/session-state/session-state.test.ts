/**
 * `@capabilities/session` in a real space (build, sandbox worker, bridge): state kept between runs of
 * one session and invisible to others, a run without a session refused, quota and expiry, JSON only,
 * and a program that cannot name another scope.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { toolCallErrorOf } from '../../test/support/tool-call-error-of.js';
import { createSpace, type Space } from '../index.js';
import { loadConfig } from '../../config/index.js';
import { createMemorySessionState, createSessionSource, SESSION_SOURCE_KIND } from './index.js';

const LIMITS = { maxBytes: 200, maxKeys: 3, ttlSeconds: 60 };

describe('@capabilities/session in a space', () => {
  let space: Space;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  beforeAll(async () => {
    const root = await makeTempDir('session-state');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], session: LIMITS }));
    // The session source with a clock the test moves (expiry), over memory: the default backing.
    const config = await loadConfig({ cwd: root });
    space = await createSpace({
      config,
      sources: (defaults) => [
        ...defaults.filter((source) => source.kind !== SESSION_SOURCE_KIND),
        createSessionSource(config, { backing: createMemorySessionState(), now: () => clock }),
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await space?.close();
  });

  it("keeps a session's values for its later runs, typed, and shows none to another session", async () => {
    const first = await space.run(
      `import { set, get } from '@capabilities/session';
const kept = await set({ key: 'cart', value: { items: ['tea'], total: 4.5 } });
const seenNow: unknown = await get({ key: 'cart' });
export default { kept, seenNow };`,
      { session: 'alice' },
    );
    expect(first.error).toBeUndefined();
    expect(first.result).toMatchObject({
      kept: { key: 'cart', bytes: JSON.stringify({ items: ['tea'], total: 4.5 }).length, keys: 1 },
      seenNow: { items: ['tea'], total: 4.5 },
    });
    const second = await space.run(
      `import { get, list } from '@capabilities/session';
export default { cart: await get({ key: 'cart' }), keys: (await list({})).map((entry) => entry.key) };`,
      { session: 'alice' },
    );
    expect(second.result).toEqual({ cart: { items: ['tea'], total: 4.5 }, keys: ['cart'] });
    const other = await space.run(
      `import { get, list } from '@capabilities/session';
export default { cart: await get({ key: 'cart' }), keys: await list({}) };`,
      { session: 'bob' },
    );
    expect(other.result).toEqual({ cart: null, keys: [] });
  });

  it('refuses the calls of a run that has no session, saying how a run gets one', async () => {
    const result = await space.run(
      `import { get } from '@capabilities/session';
export default await get({ key: 'cart' }).then(() => 'read', (error: { code: string; message: string }) => [error.code, error.message]);`,
    );
    const [code, message] = result.result as [string, string];
    expect(code).toBe('FORBIDDEN');
    expect(message).toMatch(/this run has no session/);
    expect(message).toMatch(/session: "<id>"/);
  });

  it('gives a program no way to name another scope: the scope is no argument, and keys are keys', async () => {
    await space.callTool('session.set', { key: 'secret', value: 'of carol' }, { session: 'carol' });
    const result = await space.run(
      `import * as session from '@capabilities/session';
const attempt = (promise: Promise<unknown>) => promise.then((value) => ['ok', value], (error: { code: string }) => ['refused', error.code]);
export default {
  extraArgument: await attempt((session.get as (args: object) => Promise<unknown>)({ key: 'secret', session: 'carol' })),
  scopeInKey: await attempt(session.get({ key: 'carol/secret' })),
  traversal: await attempt(session.get({ key: '../carol/secret' })),
  colon: await attempt(session.get({ key: 'carol:secret' })),
  prefixAll: await attempt(session.list({ prefix: '' })),
  controlCharacter: await attempt(session.set({ key: 'a\\u0000carol', value: 1 })),
};`,
      { session: 'mallory' },
    );
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual({
      extraArgument: ['refused', 'INVALID_ARGUMENTS'],
      scopeInKey: ['ok', null],
      traversal: ['ok', null],
      colon: ['ok', null],
      prefixAll: ['ok', []],
      controlCharacter: ['refused', 'INVALID_ARGUMENTS'],
    });
    expect(await space.callTool('session.get', { key: 'secret' }, { session: 'carol' })).toBe('of carol');
  });

  it('refuses a set over the quota (keys, then bytes) naming the limit, changing nothing', async () => {
    for (const key of ['a', 'b', 'c']) await space.callTool('session.set', { key, value: 1 }, { session: 'quota' });
    const overKeys = await toolCallErrorOf(space.callTool('session.set', { key: 'd', value: 1 }, { session: 'quota' }));
    expect(overKeys.code).toBe('FORBIDDEN');
    expect(overKeys.message).toMatch(/limit of 3 keys \(session\.maxKeys\)/);
    // Replacing a key is no new key; its bytes are counted in UTF-8 ("é" is two bytes).
    const big = 'é'.repeat(100);
    const overBytes = await toolCallErrorOf(space.callTool('session.set', { key: 'a', value: big }, { session: 'quota' }));
    expect(overBytes.message).toMatch(
      /\(202 bytes of JSON\) would bring this session over its limit of 200 bytes .*session\.maxBytes; it holds 6/,
    );
    expect(await space.callTool('session.get', { key: 'a' }, { session: 'quota' })).toBe(1);
    const fits = 'é'.repeat(95);
    expect(await space.callTool('session.set', { key: 'a', value: fits }, { session: 'quota' })).toMatchObject({
      bytes: 192,
      usedBytes: 197,
      keys: 3,
    });
    await space.callTool('session.remove', { key: 'b' }, { session: 'quota' });
    expect(await space.callTool('session.list', {}, { session: 'quota' })).toEqual([
      expect.objectContaining({ key: 'a', bytes: 192 }),
      expect.objectContaining({ key: 'c', bytes: 1 }),
    ]);
  });

  it('forgets a key its TTL after its last set, and counts only live keys against the quota', async () => {
    await space.callTool('session.set', { key: 'short', value: 'lived' }, { session: 'ttl' });
    clock += 59_000;
    await space.callTool('session.set', { key: 'renewed', value: true }, { session: 'ttl' });
    expect(await space.callTool('session.get', { key: 'short' }, { session: 'ttl' })).toBe('lived');
    clock += 2_000;
    expect(await space.callTool('session.get', { key: 'short' }, { session: 'ttl' })).toBeNull();
    expect(await space.callTool('session.list', {}, { session: 'ttl' })).toEqual([expect.objectContaining({ key: 'renewed' })]);
    for (const key of ['x', 'y']) await space.callTool('session.set', { key, value: 0 }, { session: 'ttl' });
    clock += 60_000;
    for (const key of ['p', 'q', 'r']) await space.callTool('session.set', { key, value: 0 }, { session: 'ttl' });
    expect((await space.callTool('session.list', {}, { session: 'ttl' })) as unknown[]).toHaveLength(3);
  });

  it('takes JSON data only from a direct call, and a session id the host checks', async () => {
    const notJson = await toolCallErrorOf(space.callTool('session.set', { key: 'k', value: { when: new Date(0) } }, { session: 's' }));
    expect(notJson.message).toMatch(/value\.when is a Date instance, not JSON data/);
    const infinite = await toolCallErrorOf(space.callTool('session.set', { key: 'k', value: [1, Infinity] }, { session: 's' }));
    expect(infinite.message).toMatch(/value\[1\] is Infinity/);
    await expect(space.run('export default 1', { session: '' })).rejects.toThrow(/non-empty string/);
  });
});
