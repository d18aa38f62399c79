/**
 * A crash never charges twice (issue 28 item 1), against a real PostgreSQL (a private cluster for the
 * file) and real `agent-spaces worker` processes killed with SIGKILL: a non-idempotent call whose
 * arguments hold a nonce from the clock is in flight (its effect done) when its worker is killed; the
 * worker that takes the run over replays the program, which reaches the same place in the program
 * with another nonce. That call is not performed (the journal held the in-flight call, so no call that
 * may not be done twice is done after it, whatever its arguments), and the run ends OUTCOME_UNKNOWN,
 * as docs/DEPLOY.md promises. Before the fix the replay charged again with the new nonce and the run
 * succeeded. A healthy run on the same store afterwards succeeds.
 */
import { describe, expect, it } from 'vitest';
import { submitRun, type DurableRunEvent } from '../../store/index.js';
import { makeDurableSpace } from '../../store/test-support/durable-space.js';
import { useStoreForFile } from '../../store/test-support/worker-processes.js';

const testStore = useStoreForFile();
const { workers } = testStore;

/** Runs wait for the test on a busy machine: their wall clock must not end them first. */
const LONG = 600_000;

/** A charge whose nonce comes from the clock: a replay makes the call with other arguments. */
const CHARGE_WITH_NONCE = `import { ledger } from '@capabilities/ledger';
const nonce = \`\${Date.now()}-\${Math.random().toString(36).slice(2)}\`;
const receipt = await ledger.charge({ nonce, gate: 'paid' });
export default receipt.charged;`;

describe('a non-idempotent call in flight when its worker is killed', () => {
  it(
    'is not performed again by the takeover, whatever its arguments: the run ends OUTCOME_UNKNOWN; a healthy run then succeeds',
    async () => {
      const space = await makeDurableSpace('takeover-charge');
      const store = await testStore.cluster.createDatabase('charge_once');
      const first = workers.start(space, store);
      await workers.ready(first);
      const events: DurableRunEvent[] = [];
      // No type-check: on a loaded machine it may take longer than its own limit, and it is not what this tests.
      const submitted = submitRun({
        store,
        code: CHARGE_WITH_NONCE,
        check: false,
        timeoutMs: LONG,
        onEvent: (event) => events.push(event),
      });
      // The charge is done and its call is in flight (waiting at the gate): kill -9.
      await expect.poll(() => space.waiting(), { timeout: 300_000 }).toEqual(['paid']);
      expect(space.effects()).toHaveLength(1);
      const [charged] = space.effects();
      await workers.killHard(first);
      // Open: a replay that charged again would now finish, and its run succeed.
      await space.open('paid');
      const second = workers.start(space, store);
      const result = await submitted;

      expect(result.success).toBe(false);
      expect(result.error?.code).toBe('OUTCOME_UNKNOWN');
      expect(result.error?.message).toMatch(
        /the outcome of ledger\.charge \(call 1 with these arguments\) is unknown: it was in flight when the worker running run \S+ stopped; this attempt called ledger\.charge in its place/,
      );
      // One charge: the takeover did not perform the call, nor wait at its gate.
      expect(space.effects()).toEqual([charged]);
      expect(space.waiting()).toEqual(['paid']);
      expect(events.some((event) => event.kind === 'started' && event.attempt === 2)).toBe(true);
      expect(second.stderr()).toMatch(/taken over/);

      // Healthy afterwards: a run on the same store and worker charges once and succeeds.
      const healthy = await submitRun({
        store,
        check: false,
        timeoutMs: LONG,
        code: `import { ledger } from '@capabilities/ledger';\nexport default (await ledger.charge({ nonce: 'healthy', gate: 'paid' })).charged;`,
      });
      expect(healthy.error).toBeUndefined();
      expect(healthy.result).toBe('healthy');
      expect(space.effects()).toEqual([charged, 'charge healthy']);
    },
    LONG,
  );
});
