/**
 * Workers that cannot start (no engine loads on this Node, a broken install): `ready()` and a run both
 * fail with why, after the pool's few tries, instead of waiting for ever.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { DEFAULT_RUN_LIMITS } from '../sandbox.js';
import { FIXTURE_OUT_DIR } from '../sandbox.contract.js';
import { createWorkerPoolExecutor } from './worker-pool.js';

const EXITS_AT_START = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'exits-at-start.mjs');

it("ready() rejects with the workers' own reason when they cannot start, and so does a run", async () => {
  const pool = createWorkerPoolExecutor({ workers: 1, entry: { file: EXITS_AT_START } });
  try {
    await expect(pool.ready()).rejects.toThrow(/sandbox workers fail to start .*no engine: nothing loads here/);
    // Asked again after the failure: at once, the same reason.
    await expect(pool.ready()).rejects.toThrow(/no engine: nothing loads here/);
    await expect(
      pool.execute(
        { runId: 'after-start-failure', js: 'export default async () => 1;', outDir: FIXTURE_OUT_DIR, limits: DEFAULT_RUN_LIMITS },
        async () => null,
      ),
    ).rejects.toThrow(/no engine: nothing loads here/);
  } finally {
    await pool.close();
  }
});
