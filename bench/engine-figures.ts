/**
 * QuickJS against isolated-vm on four workloads, both in sandbox worker processes (the default):
 *   node --no-node-snapshot --import tsx bench/engine-figures.ts
 * trivial run (median of 30), a sequential loop of 1,000 awaited calls (µs per call), 100 parallel
 * 50 ms calls (wall time), a 5 MB result (wall time). Each figure is the median of its repetitions.
 */
import { createSandbox } from '../runtime/create-sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../runtime/sandbox.contract.js';

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function measure(engine: 'isolated-vm' | 'quickjs'): Promise<Record<string, string>> {
  const sandbox = createSandbox({
    outDir: FIXTURE_OUT_DIR,
    isolation: 'worker',
    workers: 1,
    engine,
    limits: { maxOutputBytes: 8 * 1024 * 1024 },
  });
  await sandbox.ready();
  const run = async (code: string): Promise<number> => {
    const started = performance.now();
    const result = await sandbox.run(code, { onCall: createFixtureHost().onCall });
    if (!result.success) throw new Error(`${engine}: ${JSON.stringify(result.error)}`);
    return performance.now() - started;
  };
  const times = async (code: string, count: number): Promise<number> => {
    const all: number[] = [];
    await run(code);
    for (let index = 0; index < count; index++) all.push(await run(code));
    return median(all);
  };
  try {
    const trivial = await times('return 1;', 30);
    const loop = await times(
      "import { add } from '@capabilities/math';\nlet s = 0;\nfor (let i = 0; i < 1000; i++) s = await add({ a: s, b: 1 });\nreturn s;",
      5,
    );
    const parallel = await times(
      "import { sleep } from '@capabilities/math';\nawait Promise.all(Array.from({ length: 100 }, () => sleep({ ms: 50 })));\nreturn 1;",
      5,
    );
    const big = await times("return 'x'.repeat(5 * 1024 * 1024 - 16);", 5);
    return {
      engine,
      trivial: `${trivial.toFixed(2)} ms`,
      sequentialCall: `${(((loop - trivial) * 1000) / 1000).toFixed(1)} µs/call`,
      parallel100x50ms: `${parallel.toFixed(1)} ms`,
      result5MB: `${big.toFixed(1)} ms`,
    };
  } finally {
    await sandbox.close();
  }
}

const rows = [];
for (const engine of ['isolated-vm', 'quickjs'] as const) rows.push(await measure(engine));
console.table(rows);
