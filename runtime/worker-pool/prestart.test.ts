/**
 * A sandbox worker started before its pool (the CLI's `run` starts it while the space loads): the first
 * pool of the same engine takes it and runs on it; a pool of another engine kills it and starts its own.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../create-sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../sandbox.contract.js';
import { prestartSandboxWorker } from './prestart.js';
import { sandboxWorkerPids } from '../../test/support/sandbox-worker-pids.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a sandbox worker started before its pool', () => {
  it('is taken by the first pool of its engine, which runs on it', async () => {
    const before = await sandboxWorkerPids();
    prestartSandboxWorker('quickjs');
    const started = (await sandboxWorkerPids()).filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', engine: 'quickjs', workers: 1 });
    try {
      const host = createFixtureHost();
      expect(
        await sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 2, b: 3 });", { onCall: host.onCall }),
      ).toMatchObject({
        success: true,
        result: 5,
      });
      expect(sandbox.pids()).toEqual(started);
    } finally {
      await sandbox.close();
    }
    expect(alive(started[0] ?? -1)).toBe(false);
  });

  it('is killed when the first pool asks for another engine, which starts its own worker', async () => {
    const before = await sandboxWorkerPids();
    prestartSandboxWorker('quickjs');
    const [prestarted] = (await sandboxWorkerPids()).filter((pid) => !before.includes(pid));
    expect(prestarted).toBeGreaterThan(0);
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', engine: 'isolated-vm', workers: 1 });
    try {
      expect(await sandbox.run('return 6 * 7;', { onCall: createFixtureHost().onCall })).toMatchObject({ success: true, result: 42 });
      expect(sandbox.pids()).not.toContain(prestarted);
      await expect.poll(() => alive(prestarted ?? -1)).toBe(false);
    } finally {
      await sandbox.close();
    }
  });
});
