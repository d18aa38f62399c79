// Takeovers after kill -9 against a real PostgreSQL (a private cluster) and real worker processes:
// a planner task keeps the budget it had before the crash; an approval whose deadline passes while no
// worker lives is denied when a worker comes back.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { callReply, startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { DEADLINE_REASON } from '../store/approval-store.js';
import { submitRun, type DurableRunEvent } from '../store/index.js';
import { submitTask } from './index.js';
import { SCHEMA } from '../store/store.js';
import { makeDurableSpace } from '../store/test-support/durable-space.js';
import { useStoreForFile } from '../store/test-support/worker-processes.js';

const testStore = useStoreForFile();
const { workers } = testStore;

/** Runs wait for the test on a busy machine: their wall clock must not end them first. */
const LONG = 600_000;

type PlannerEvent = { type: string; step: number; usage?: { steps: number; toolCalls: number; tokens: { input: number; output: number } } };

describe('a planner task taken over after kill -9', () => {
  it(
    'has the same budget left as before the crash: the replies served from the model journal count once',
    async () => {
      const model = await startScriptedModelServer([
        callReply('call_tool', { name: 'ledger.record', arguments: { item: 'u1' } }),
        callReply('call_tool', { name: 'ledger.gate', arguments: { name: 'u' } }),
        callReply('call_tool', { name: 'ledger.record', arguments: { item: 'u2' } }),
        callReply('finish', { summary: 'recorded both', result: { ok: true } }),
      ]);
      try {
        const space = await makeDurableSpace('takeover-budget');
        const store = await testStore.cluster.createDatabase('budget');
        const first = workers.start(space, store);
        await workers.ready(first);
        const events: DurableRunEvent[] = [];
        // Exactly the budget the task needs: one step or call counted twice breaches it.
        const submitted = submitTask({
          store,
          task: 'record u1 and u2',
          model: { baseURL: model.baseURL, model: 'scripted-model' },
          budget: { maxSteps: 4, maxToolCalls: 3 },
          onEvent: (event) => events.push(event),
        });
        await expect.poll(() => space.waiting(), { timeout: 300_000 }).toEqual(['u']);
        await workers.killHard(first);
        // The two replies' events were committed before the gate waited; the submitter reads them from the
        // store as they come (the worker may reach the gate before they reach it), also after the kill.
        await expect.poll(() => usageAtReplies(events).map((usage) => usage.steps)).toEqual([1, 2]);
        const usageBefore = usageAtReplies(events);
        await space.open('u');
        workers.start(space, store);
        const result = await submitted;
        expect(result.error).toBeNull();
        expect(result.success).toBe(true);
        expect(result.budgetUsage).toMatchObject({ steps: 4, toolCalls: 3, tokens: { input: 4000, output: 400 } });
        // The takeover's first two steps (their replies from the store) use what the crashed attempt had used.
        const afterTakeover = usageAtReplies(events.slice(events.findIndex((event) => event.kind === 'started' && event.attempt === 2)));
        expect(afterTakeover.slice(0, 2)).toEqual(usageBefore);
        expect(model.chatRequests()).toHaveLength(4);
        expect(space.effects()).toEqual(['record u1', 'record u2']);
      } finally {
        await model.close();
      }
    },
    LONG,
  );
});

/** The budget used after each model reply, in order, from the task's planner events. */
function usageAtReplies(events: DurableRunEvent[]): NonNullable<PlannerEvent['usage']>[] {
  return events.flatMap((event) => {
    if (event.kind === 'started' && event.attempt > 1) return [];
    const planner = event.kind === 'planner' ? (event.event as PlannerEvent) : undefined;
    return planner?.type === 'model-reply' && planner.usage ? [planner.usage] : [];
  });
}

describe('an approval whose deadline passes while no worker lives', () => {
  it(
    'is denied when a worker comes back; the call is not performed',
    async () => {
      const space = await makeDurableSpace('takeover-deadline', { approvalDeadlineMs: 3_600_000 });
      const store = await testStore.cluster.createDatabase('deadline_no_worker');
      const first = workers.start(space, store);
      await workers.ready(first);
      const events: DurableRunEvent[] = [];
      const submitted = submitRun({
        store,
        code: `import { ledger } from '@capabilities/ledger';\ntry { await ledger.send({ item: 'late' }); } catch (error) { console.log(String(error)); }\nexport default 'after';`,
        timeoutMs: LONG,
        onEvent: (event) => events.push(event),
      });
      await expect.poll(() => events.some((event) => event.kind === 'approval-required'), { timeout: 300_000 }).toBe(true);
      await workers.killHard(first);
      // No worker lives: the deadline passes (moved into the past, rather than waited for).
      const admin = new pg.Client({ connectionString: store });
      await admin.connect();
      try {
        const moved = await admin.query(`UPDATE ${SCHEMA}.approvals SET deadline = now() - interval '1 minute' WHERE status = 'pending'`);
        expect(moved.rowCount).toBe(1);
        workers.start(space, store);
        const result = await submitted;
        expect(result.error).toBeUndefined();
        expect(result.result).toBe('after');
        expect(result.logs.map((log) => log.message).join('\n')).toMatch(/APPROVAL_DENIED|denied/);
        expect(space.effects()).toEqual([]);
        const { rows } = await admin.query<{ status: string; reason: string }>(`SELECT status, reason FROM ${SCHEMA}.approvals`);
        expect(rows).toEqual([{ status: 'denied', reason: DEADLINE_REASON }]);
      } finally {
        await admin.end();
      }
    },
    LONG,
  );
});
