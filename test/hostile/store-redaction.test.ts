/**
 * What a durable run writes to the store — its events (logs, approval-required with its message, the
 * end), its approvals (message and parameters) — goes through the store's one writer, redacted with
 * the space's secrets, whatever the kind of row; what `run --store` and `trace` print from the store is
 * therefore redacted too. Against a real PostgreSQL and a real worker process; a healthy run follows.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openApprovals, submitRun, type DurableRunEvent } from '../../store/index.js';
import { makeDurableSpace, startCli } from '../../store/test-support/durable-space.js';
import { useStoreForFile } from '../../store/test-support/worker-processes.js';

const testStore = useStoreForFile();
const { workers } = testStore;
/** The model key of the space's config: a secret the worker's space holds (not a well-known shape). */
const MODEL_KEY = 'model-key-9f8e7d6c5b4a3921';

describe('store redaction: one writer for every stored row', () => {
  it('an approval-required message, the approval row, log lines and the trace hold no secret', { timeout: 600_000 }, async () => {
    const space = await makeDurableSpace('store-redaction');
    const configFile = path.join(space.root, 'agent-spaces.config.json');
    await writeFile(configFile, JSON.stringify({ ...JSON.parse(await readFile(configFile, 'utf8')), model: { apiKey: MODEL_KEY } }));
    const store = await testStore.cluster.createDatabase('store_redaction');
    const worker = workers.start(space, store);
    await workers.ready(worker);

    // The program passes the key (as a program that got it from a tool would) into a call that asks for approval.
    const code = [
      "import { ledger } from '@capabilities/ledger';",
      `const key = ${JSON.stringify(MODEL_KEY)};`,
      'console.log(`about to send ${key}`);',
      'try { await ledger.send({ item: key }); } catch (error) { console.log(String(error)); }',
      "export default 'asked';",
    ].join('\n');
    const events: DurableRunEvent[] = [];
    const approvals = await openApprovals(store);
    let runId = '';
    try {
      const run = await submitRun({
        store,
        code,
        onEvent: (event) => {
          events.push(event);
          if (event.kind === 'approval-required') void approvals.decide(event.approvalId, { approved: false });
        },
      });
      runId = run.runId;
      expect(run.result).toBe('asked');
    } finally {
      await approvals.close();
    }
    const asked = events.find((event) => event.kind === 'approval-required');
    expect(asked?.kind === 'approval-required' ? asked.message : '').toBe('Send [REDACTED: model API key]?');
    expect(JSON.stringify(events)).not.toContain(MODEL_KEY);

    // Every row of the run, read straight from the tables.
    const client = new pg.Client({ connectionString: store });
    await client.connect();
    try {
      const rows = await client.query<{ text: string }>(
        `SELECT data::text AS text FROM agent_spaces.run_events WHERE run_id = $1
         UNION ALL SELECT message || ' ' || params::text FROM agent_spaces.approvals WHERE run_id = $1`,
        [runId],
      );
      expect(rows.rows.length).toBeGreaterThan(3);
      const stored = rows.rows.map((row) => row.text).join('\n');
      expect(stored).not.toContain(MODEL_KEY);
      expect(stored).toContain('[REDACTED: model API key]');
    } finally {
      await client.end();
    }

    // What `agent-spaces trace` prints from the store.
    const trace = startCli(['trace', runId, '--store', store], { cwd: space.root, env: space.env });
    expect(await trace.exited).toBe(0);
    expect(trace.stdout()).not.toContain(MODEL_KEY);
    expect(trace.stdout()).toContain('[REDACTED: model API key]');

    // Healthy: a run without secrets completes and prints as it is.
    const healthy = await submitRun({
      store,
      code: "import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: 'plain' });\nexport default 'plain';",
    });
    expect(healthy.result).toBe('plain');
  });
});
