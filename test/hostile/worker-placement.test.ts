/**
 * Issue 28, item 7: a worker that holds a run past its deadline takes no new run. A program computing
 * in one long native builtin after another holds its worker's thread past its deadline (QuickJS asks
 * its interrupt handler only every few thousand operations, so the run is ended by the host's backstop
 * and the worker gets a grace to report it stopped). Runs started after the hostile one ended must not
 * be placed on that worker: they go to another one, started beside it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox, type WorkerSandbox } from '../../runtime/create-sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';

const HOLDS_THE_THREAD =
  'const keep: number[][] = [];\nwhile (true) { keep.length = 0; for (let i = 0; i < 20; i++) keep.push(new Array(200000).fill(i)); }';

describe('worker placement after a deadline', () => {
  let sandbox: WorkerSandbox | undefined;
  afterAll(async () => {
    await sandbox?.close();
  });

  it('puts no new run on a worker whose run passed its deadline but has not stopped, then runs healthy', async () => {
    sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1, runsPerWorker: 8, engine: 'quickjs' });
    await sandbox.ready();
    const [stuckPid] = sandbox.pids();
    const hostile = await sandbox.run(HOLDS_THE_THREAD, { onCall: createFixtureHost().onCall, limits: { timeoutMs: 500 } });
    expect(hostile).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });

    // Started right after the hostile run ended, while its worker may still be computing.
    const trivial = (value: number) =>
      sandbox!.run(`import { add } from '@capabilities/math';\nreturn await add({ a: ${value}, b: 1 });`, {
        onCall: createFixtureHost().onCall,
        limits: { timeoutMs: 5_000 },
      });
    const [first, second] = await Promise.all([trivial(1), trivial(2)]);
    expect(first).toMatchObject({ success: true, result: 2 });
    expect(second).toMatchObject({ success: true, result: 3 });

    // The pool is whole again: the stuck worker is gone, a healthy run after all of it.
    await expect.poll(() => sandbox!.pids().includes(stuckPid as number)).toBe(false);
    expect(await trivial(3)).toMatchObject({ success: true, result: 4 });
  });
});
