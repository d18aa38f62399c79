/**
 * The worker pool's own lifecycle (the sandbox contract in a worker pool runs in sandbox-contract.test.ts,
 * for every engine). The engine is the default one, or AGENT_SPACES_ENGINE's.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../create-sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../sandbox.contract.js';

describe('worker pool lifecycle', () => {
  it('kills every worker on close', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 2 });
    await sandbox.ready();
    const pids = sandbox.pids();
    expect(pids).toHaveLength(2);
    await sandbox.close();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    await expect(sandbox.run('return 1', { onCall: async () => null })).rejects.toThrow(/closed/);
  });
  it('does not start a run cancelled while it waited for a busy worker', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1, runsPerWorker: 1 });
    try {
      await sandbox.ready();
      const first = createFixtureHost();
      const busy = sandbox.run("import { sleep } from '@capabilities/math';\nreturn await sleep({ ms: 300 });", { onCall: first.onCall });
      const queued = createFixtureHost();
      const controller = new AbortController();
      const cancelled = sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", {
        onCall: queued.onCall,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 50);
      expect(await cancelled).toMatchObject({ success: false, error: { code: 'CANCELLED' } });
      expect(queued.calls).toHaveLength(0);
      expect(await busy).toMatchObject({ success: true, result: 300 });
      expect(await sandbox.run('return 7', { onCall: first.onCall })).toMatchObject({ success: true, result: 7 });
    } finally {
      await sandbox.close();
    }
  });
  it('runs several programs at once in one worker process', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1, runsPerWorker: 4 });
    try {
      await sandbox.ready();
      const [pid] = sandbox.pids();
      // Each run waits until all four have called: only runs that are in progress together can finish.
      let arrived = 0;
      let releaseAll!: () => void;
      const allArrived = new Promise<void>((resolve) => (releaseAll = resolve));
      const onCall = async (): Promise<unknown> => {
        if (++arrived === 4) releaseAll();
        await allArrived;
        return 1;
      };
      const runs = Array.from({ length: 4 }, () =>
        sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", { onCall }),
      );
      expect(await Promise.all(runs)).toMatchObject(Array.from({ length: 4 }, () => ({ success: true, result: 1 })));
      expect(sandbox.pids()).toEqual([pid]);
    } finally {
      await sandbox.close();
    }
  });
  it('keeps apart runs given the same run id, and takes a run id of any length (the pipe uses its own ids)', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1, runsPerWorker: 4 });
    try {
      await sandbox.ready();
      const [pid] = sandbox.pids();
      // Both runs are in their call at once; each gets its own answer and ends with its own result.
      let arrived = 0;
      let releaseBoth!: () => void;
      const bothArrived = new Promise<void>((resolve) => (releaseBoth = resolve));
      const seen: string[] = [];
      const onCall = async (params: { args: unknown }, context: { runId: string }): Promise<unknown> => {
        seen.push(context.runId);
        if (++arrived === 2) releaseBoth();
        await bothArrived;
        return (params.args as { a: number }).a;
      };
      const code = (a: number) => `import { add } from '@capabilities/math';\nreturn (await add({ a: ${a}, b: 0 })) * 10;`;
      const runId = 'same-' + 'x'.repeat(600);
      const results = await Promise.all([sandbox.run(code(1), { onCall, runId }), sandbox.run(code(2), { onCall, runId })]);
      expect(results).toMatchObject([
        { success: true, result: 10 },
        { success: true, result: 20 },
      ]);
      expect(seen).toEqual([runId, runId]); // the host still sees the caller's id
      expect(sandbox.pids()).toEqual([pid]);
    } finally {
      await sandbox.close();
    }
  });
  it('starts one worker for runs one at a time, and the rest of the pool once runs overlap', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 3 });
    try {
      const host = createFixtureHost();
      for (let run = 0; run < 3; run++)
        expect(
          await sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });", { onCall: host.onCall }),
        ).toMatchObject({
          success: true,
          result: 3,
        });
      expect(sandbox.pids()).toHaveLength(1);
      const slow = "import { sleep } from '@capabilities/math';\nreturn await sleep({ ms: 100 });";
      const both = await Promise.all([sandbox.run(slow, { onCall: host.onCall }), sandbox.run(slow, { onCall: host.onCall })]);
      expect(both).toMatchObject([
        { success: true, result: 100 },
        { success: true, result: 100 },
      ]);
      expect(sandbox.pids()).toHaveLength(3);
      await sandbox.ready();
      expect(sandbox.pids()).toHaveLength(3);
    } finally {
      await sandbox.close();
    }
  });
  it('refuses a missing build folder', () => {
    expect(() => createSandbox({ outDir: '/nonexistent/agent-spaces-build' })).toThrow(/does not exist/);
  });
});
