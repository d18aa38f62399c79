/**
 * Durable runs against a real PostgreSQL: an approval is decided once, only by the id it names, whatever
 * races or wildcards the CLI is given; a replay cannot get a finished call performed twice; the call
 * journal stores an outcome as redacted as the program saw it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendCall } from '../../bridge/index.js';
import { resolveConfig } from '../../config/index.js';
import { createSpace } from '../../space/index.js';
import { decideStoredApproval, getStoredApproval, requestStoredApproval, type StoredApproval } from '../../store/approval-store.js';
import type { DurableError } from '../../store/durable-error.js';
import { openRunJournal } from '../../worker/run-journal.js';
import { createPool, ensureStoreSchema, type Pool } from '../../store/store.js';
import { startPostgresCluster, type PostgresCluster } from '../../store/test-support/postgres-cluster.js';
import { openapiSource } from '../../sources/openapi/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('durable runs against a real PostgreSQL', () => {
  let cluster: PostgresCluster;
  const pools: Pool[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
  }, 180_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await cluster?.stop();
  });

  async function freshStore(name: string): Promise<Pool> {
    const url = await cluster.createDatabase(name);
    const pool = createPool(url, 4);
    pools.push(pool);
    await ensureStoreSchema(url, pool);
    return pool;
  }

  const approvalOf = (runId: string, callKey: string) => ({
    runId,
    callKey,
    capability: 'bank',
    function: 'pay',
    params: { to: 'mallory' },
    message: 'Pay?',
  });

  it('the approvals CLI cannot decide an approval that does not exist, nor one already decided (the decision stands), nor both of two racing decisions', async () => {
    const pool = await freshStore('attack3_decide');
    await expect(decideStoredApproval(pool, 'ffffffffff', { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
    await expect(decideStoredApproval(pool, '', { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
    const first = await requestStoredApproval(pool, approvalOf('run-1', 'bank.pay#1'));
    await decideStoredApproval(pool, first.id, { approved: false, reason: 'no' });
    await expect(decideStoredApproval(pool, first.id, { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_DECIDED' });
    expect(await getStoredApproval(pool, first.id)).toMatchObject({ status: 'denied', reason: 'no' });
    // A replayed run asking again gets the same row, still denied.
    expect(await requestStoredApproval(pool, approvalOf('run-1', 'bank.pay#1'))).toMatchObject({ id: first.id, status: 'denied' });

    const second = await requestStoredApproval(pool, approvalOf('run-2', 'bank.pay#1'));
    const outcomes = await Promise.allSettled([
      decideStoredApproval(pool, second.id, { approved: true }),
      decideStoredApproval(pool, second.id, { approved: false }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const decided = await getStoredApproval(pool, second.id);
    const winner = outcomes.find((outcome): outcome is PromiseFulfilledResult<StoredApproval> => outcome.status === 'fulfilled');
    expect(decided?.status).toBe(winner?.value.status);
  });

  // An approval is decided only by an id it names: ids must be hex, checked before any query, so the LIKE
  // wildcards (`%`, `_`, `\`) cannot make an empty prefix that matches, and decides, the only pending one.
  it('"approvals approve %" does not decide an approval it does not name', async () => {
    const pool = await freshStore('attack3_wildcard');
    const only = await requestStoredApproval(pool, approvalOf('run-3', 'bank.pay#1'));
    await expect(decideStoredApproval(pool, '%', { approved: true })).rejects.toMatchObject({ code: 'APPROVAL_NOT_FOUND' });
    expect(await getStoredApproval(pool, only.id)).toMatchObject({ status: 'pending' });
  });

  it('a replay cannot get a finished call performed twice: reordered arguments are the same call, a call overtaking the journal diverges, an unfinished one is not repeated', async () => {
    const pool = await freshStore('attack3_journal');
    const performed: string[] = [];
    const callOf = (fn: string, args: Record<string, unknown>): BackendCall =>
      ({
        capability: { module: 'bank' },
        function: { name: fn },
        args,
        context: { signal: new AbortController().signal },
      }) as unknown as BackendCall;
    const perform = (label: string) => async () => {
      performed.push(label);
      return { ok: label };
    };
    const attempt = async (runId: string) => {
      const fatal: DurableError[] = [];
      const journal = await openRunJournal(pool, {
        runId,
        executorId: 'attacker',
        isIdempotent: () => false,
        onFatal: (error) => fatal.push(error),
      });
      return { journal, fatal };
    };
    // First attempt: two payments, then the worker "dies" with a third in flight (started, never finished).
    const one = await attempt('run-pay');
    await one.journal.perform(callOf('pay', { to: 'bob', amount: 5 }), perform('pay bob'));
    await one.journal.perform(callOf('pay', { to: 'carol', amount: 7 }), perform('pay carol'));
    const inFlight = one.journal.perform(callOf('pay', { to: 'dave', amount: 9 }), () => new Promise(() => undefined));
    void inFlight;
    await expect
      .poll(
        async () =>
          (await pool.query(`SELECT count(*)::int AS n FROM agent_spaces.call_journal WHERE run_id = 'run-pay' AND status = 'started'`))
            .rows[0]?.n,
      )
      .toBe(1);
    expect(performed).toEqual(['pay bob', 'pay carol']);

    // A replay that builds the same arguments in another key order is served from the journal.
    const two = await attempt('run-pay');
    expect(await two.journal.perform(callOf('pay', { amount: 5, to: 'bob' }), perform('pay bob again'))).toEqual({ ok: 'pay bob' });
    // A replay that tries to slip a new call in before the journaled ones diverges, and nothing is performed.
    await expect(two.journal.perform(callOf('pay', { to: 'mallory', amount: 1_000 }), perform('pay mallory'))).rejects.toThrow(/diverged/);
    expect(two.fatal.map((error) => error.code)).toEqual(['REPLAY_DIVERGED']);
    await expect(two.journal.perform(callOf('pay', { to: 'carol', amount: 7 }), perform('pay carol again'))).rejects.toThrow();

    // An honest replay reaches the call that was in flight: not performed again (its outcome is unknown).
    const three = await attempt('run-pay');
    await three.journal.perform(callOf('pay', { to: 'bob', amount: 5 }), perform('x'));
    await three.journal.perform(callOf('pay', { to: 'carol', amount: 7 }), perform('x'));
    await expect(three.journal.perform(callOf('pay', { to: 'dave', amount: 9 }), perform('pay dave again'))).rejects.toThrow(
      /outcome of bank.pay .* is unknown/,
    );
    expect(three.fatal.map((error) => error.code)).toEqual(['OUTCOME_UNKNOWN']);
    expect(performed).toEqual(['pay bob', 'pay carol']);
  });

  // The journal is replayed to the program after a restart and read by people: a tool error quoting a
  // secret of the space (here the value of an OpenAPI service's header) must be stored as redacted as the
  // program saw it — the bridge hands the journal failures already redacted — never verbatim.
  it('a tool error quoting a secret of the space is journaled redacted, as the program saw it', async () => {
    const pool = await freshStore('attack3_secrets');
    const dir = await makeTempDir('attack3-durable-secret');
    await writeFile(
      path.join(dir, 'leaky.ts'),
      [
        "import { z } from 'zod';",
        "import { defineFunction, defineTool } from 'agent-spaces';",
        "export const leaky = defineTool({ name: 'leaky', description: 'fails quoting a key', version: '1.0.0', functions: {",
        "  fail: defineFunction({ description: 'fails', parameters: z.object({}), returns: z.null(), handler: () => { throw new Error(`upstream refused key ${process.env.ATTACK3_DURABLE_KEY}`); } }),",
        '} });',
      ].join('\n'),
    );
    await writeFile(
      path.join(dir, 'spec.json'),
      JSON.stringify({ openapi: '3.0.3', info: { title: 's', version: '1' }, servers: [{ url: 'http://127.0.0.1:9' }], paths: {} }),
    );
    const secret = 'sk-durable-secret-4e1f8a2b';
    process.env.ATTACK3_DURABLE_KEY = secret;
    const config = resolveConfig(
      {
        capabilities: ['leaky.ts'],
        openapi: { vault: { spec: 'spec.json', headers: { authorization: `Bearer \${ATTACK3_DURABLE_KEY}` } } },
      },
      { root: dir, env: process.env },
    );
    const journal = await openRunJournal(pool, {
      runId: 'run-secret',
      executorId: 'attacker',
      isIdempotent: () => true,
      onFatal: () => undefined,
    });
    const space = await createSpace({
      config,
      sources: (defaults) => [...defaults, openapiSource],
      isolation: 'in-process',
      journal: (call, perform) => journal.perform(call, perform),
    });
    try {
      expect((await space.build()).errors).toEqual([]);
      const result = await space.run(
        "import { leaky } from '@capabilities/leaky';\ntry { await leaky.fail({}); } catch (error) { return String((error as Error).message); }\nreturn 'no error';",
        { check: false, runId: 'run-secret' },
      );
      expect(result.success).toBe(true);
      expect(String(result.result)).toMatch(/upstream refused key/);
      expect(String(result.result)).not.toContain(secret);
      await journal.flush(); // as a worker does before it records the run's end
      const { rows } = await pool.query<{ outcome: string }>(`SELECT outcome FROM agent_spaces.call_journal WHERE run_id = 'run-secret'`);
      expect(rows).toHaveLength(1);
      expect(rows[0]?.outcome).not.toContain(secret);
    } finally {
      await space.close();
      delete process.env.ATTACK3_DURABLE_KEY;
    }
  });
});
