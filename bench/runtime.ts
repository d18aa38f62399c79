/**
 * Runtime benchmark: cold runs of a trivial program (pooled worker, in-process) against a `node -e`
 * subprocess and a worker thread per run; per-call overhead of sequential and parallel calls in
 * both isolation modes; how parallel slow calls overlap; how soon the pool runs again after a stuck run;
 * the cost of compiling and type-checking a program; and a program's own work (arrays, a Map, strings,
 * JSON, a regular expression) in the sandbox against the same code in a bare context of the same engine,
 * where nothing of the bootstrap ran (what the guest does to a context must not slow the program down:
 * an index key it once put on Array.prototype made V8's arrays 10-20× slower for the whole run).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CapabilityCallHandler } from '../core/protocol.js';
import { createSandbox } from '../runtime/create-sandbox.js';
import { loadIsolatedVm } from '../runtime/isolated-vm/load-isolated-vm.js';
import { loadQuickJs } from '../runtime/quickjs/load-quickjs.js';
import { compileProgram } from '../runtime/program/compile-program.js';
import type { Sandbox } from '../runtime/sandbox.js';
import { createTypeChecker } from '../runtime/type-check.js';

const OUT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'runtime', '__fixtures__', 'build');
const TRIVIAL = 'return 1 + 1;';
const SEQUENTIAL =
  "import { add } from '@capabilities/math';\nlet sum = 0;\nfor (let i = 0; i < 1000; i++) sum = await add({ a: sum, b: 1 });\nreturn sum;";
const PARALLEL =
  "import { add } from '@capabilities/math';\nconst all = await Promise.all(Array.from({ length: 100 }, (_, i) => add({ a: i, b: 1 })));\nreturn all.length;";
const OVERLAP = "import { sleep } from '@capabilities/math';\nawait Promise.all(Array.from({ length: 10 }, () => sleep({ ms: 100 })));";
const STUCK =
  "import { sleep } from '@capabilities/math';\nawait sleep({ ms: 1 });\nconst data = new Float64Array(2e7);\nfor (let i = 0; i < data.length; i++) data[i] = Math.random();\ndata.sort();";

/** A program's own work, synchronous (a bare context needs no job pump); its value is checked. */
const WORK_BODY = `const a = []; for (let i = 0; i < 3e5; i++) a.push(i);
const b = new Array(3e5).fill(1); const c = [...a.slice(0, 5e4), ...b.slice(0, 5e4)];
const m = new Map(); for (let i = 0; i < 5e4; i++) m.set('k' + i, i); let s = 0; for (const [, v] of m) s += v;
const joined = a.slice(0, 5e4).join(',').split(',').map(Number).reduce((x, y) => x + y, 0);
const o = JSON.parse(JSON.stringify(a.slice(0, 5e4).map((x) => ({ x, y: String(x) }))));
const re = 'abc'.repeat(5e4).replace(/b/g, 'x').match(/x/g).length;
const value = a.filter((x) => x % 2).map((x) => x * 2).length + c.length + s + joined + o.length + re;`;
const WORK_RESULT = 150_000 + 100_000 + 1_249_975_000 + 1_249_975_000 + 50_000 + 50_000;

/** The same work in a bare context of `engine` (no bootstrap; no interrupt handler, and no limit but isolated-vm's 128 MB), median of `times` fresh contexts. */
async function bareWork(engine: string, times: number): Promise<number> {
  const code = `(() => { ${WORK_BODY}\nreturn value; })()`;
  return median(times, async () => {
    let value: unknown;
    if (engine === 'quickjs') {
      const runtime = (await loadQuickJs()).newRuntime();
      const context = runtime.newContext();
      const result = context.evalCode(code);
      value = result.error === undefined ? context.dump(result.value) : context.dump(result.error);
      (result.error ?? result.value).dispose();
      context.dispose();
      runtime.dispose();
    } else {
      const ivm = loadIsolatedVm();
      const isolate = new ivm.Isolate({ memoryLimit: 128 });
      value = await (await isolate.createContext()).eval(code);
      isolate.dispose();
    }
    if (value !== WORK_RESULT) throw new Error(`bench: the bare ${engine} context computed ${JSON.stringify(value)}`);
  });
}

const immediate: CapabilityCallHandler = async ({ function: fn, args }) => {
  const { a, b, ms } = (args ?? {}) as { a?: number; b?: number; ms?: number };
  if (fn === 'sleep') {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return ms;
  }
  return (a ?? 0) + (b ?? 0);
};

async function median(times: number, once: () => Promise<unknown>, idleMs = 0): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < times; index++) {
    if (idleMs > 0) await new Promise((resolve) => setTimeout(resolve, idleMs));
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  samples.sort((x, y) => x - y);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

async function runOk(sandbox: Sandbox, code: string): Promise<void> {
  const result = await sandbox.run(code, { onCall: immediate, limits: { maxCalls: 2000 } });
  if (!result.success) throw new Error(`bench program failed: ${result.error?.message}`);
}

function subprocess(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', 'console.log(1 + 1)'], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve());
  });
}

function workerThread(): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker("require('node:worker_threads').parentPort.postMessage(1 + 1)", { eval: true });
    worker.once('message', () => void worker.terminate().then(() => resolve()));
    worker.once('error', reject);
  });
}

/**
 * A process's memory from /proc/<pid>/smaps_rollup, in MB: `rss` (VmRSS), `sharedClean` (pages of
 * files it maps that other processes map too — node's binary, isolated-vm's library), `private` (its
 * own pages: what one more worker costs), `pss` (private plus its share of the shared pages).
 */
function memoryOf(pid: number): { rss: number; sharedClean: number; private: number; pss: number } {
  const fields = new Map<string, number>();
  for (const line of readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').split('\n')) {
    const match = /^(\w+):\s+(\d+) kB/.exec(line);
    if (match) fields.set(match[1] as string, Number(match[2]) / 1024);
  }
  const field = (name: string): number => fields.get(name) ?? Number.NaN;
  return {
    rss: field('Rss'),
    sharedClean: field('Shared_Clean'),
    private: field('Private_Clean') + field('Private_Dirty'),
    pss: field('Pss'),
  };
}

const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;
const msText = (ms: number): string => `${ms.toFixed(2)} ms`;

export async function run(): Promise<string> {
  const pooled = createSandbox({ outDir: OUT_DIR, isolation: 'worker', workers: 2 });
  const inProcess = createSandbox({ outDir: OUT_DIR, isolation: 'in-process' });
  try {
    await pooled.ready();
    for (const sandbox of [pooled, inProcess]) for (let index = 0; index < 5; index++) await runOk(sandbox, TRIVIAL);

    const subprocessMs = await median(10, subprocess);
    const threadMs = await median(20, workerThread);
    const pooledMs = await median(50, () => runOk(pooled, TRIVIAL));
    const inProcessMs = await median(50, () => runOk(inProcess, TRIVIAL));
    // With a moment between runs (as between model turns) the next isolate is already prepared.
    const pooledIdleMs = await median(50, () => runOk(pooled, TRIVIAL), 5);
    const inProcessIdleMs = await median(50, () => runOk(inProcess, TRIVIAL), 5);

    // A worker's memory once idle after runs (its spare isolate prepared), averaged over the pool.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const memories = pooled.pids().map(memoryOf);
    const mean = (pick: (memory: ReturnType<typeof memoryOf>) => number): number =>
      memories.reduce((sum, memory) => sum + pick(memory), 0) / memories.length;
    const workerMemory = {
      rss: mean((memory) => memory.rss),
      sharedClean: mean((memory) => memory.sharedClean),
      private: mean((memory) => memory.private),
      pss: mean((memory) => memory.pss),
    };

    const perCall = async (sandbox: Sandbox, code: string, calls: number, base: number): Promise<number> =>
      ((await median(7, () => runOk(sandbox, code))) - base) / calls;
    const sequentialWorker = await perCall(pooled, SEQUENTIAL, 1000, pooledMs);
    const sequentialInProcess = await perCall(inProcess, SEQUENTIAL, 1000, inProcessMs);
    const parallelWorker = await perCall(pooled, PARALLEL, 100, pooledMs);
    const parallelInProcess = await perCall(inProcess, PARALLEL, 100, inProcessMs);
    const overlapWorker = await median(3, () => runOk(pooled, OVERLAP));
    const overlapInProcess = await median(3, () => runOk(inProcess, OVERLAP));

    // A stuck run: time from its timeout being reported until the pool has run the next program. The
    // worker is replaced only when its instance does not report stopping in time; otherwise it goes on.
    const stuckPool = createSandbox({ outDir: OUT_DIR, isolation: 'worker', workers: 1 });
    await stuckPool.ready();
    const replacements: number[] = [];
    for (let index = 0; index < 3; index++) {
      const stuck = await stuckPool.run(STUCK, { onCall: immediate, limits: { timeoutMs: 500, memoryLimitMb: 512 } });
      if (!stuck.timedOut)
        throw new Error(`bench: the stuck program was expected to time out: ${JSON.stringify(stuck.error ?? stuck.result)}`);
      const reported = performance.now();
      await runOk(stuckPool, TRIVIAL);
      replacements.push(performance.now() - reported);
    }
    await stuckPool.close();
    replacements.sort((x, y) => x - y);
    const replacementMs = replacements[1] ?? Number.NaN;

    const longProgram =
      Array.from({ length: 200 }, (_, index) => `const value${index}: number = ${index} * 2; // line ${index}`).join('\n') +
      '\nreturn value199;';
    const compileMs = await median(20, async () => compileProgram(longProgram));
    const checker = createTypeChecker({ outDir: OUT_DIR });
    const started = performance.now();
    await checker.check("import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });");
    const coldCheckMs = performance.now() - started;
    let variant = 0;
    const warmCheckMs = await median(20, async () =>
      checker.check(`import { add } from '@capabilities/math';\nconst n: number = await add({ a: ${variant++}, b: 2 });\nreturn n;`),
    );

    // A program's own work: the in-process sandbox against a bare context of the engine it ran on.
    const engine = (await inProcess.run(TRIVIAL, { onCall: immediate, check: false })).engine?.name ?? 'isolated-vm';
    const workMs = await median(7, async () => {
      const result = await inProcess.run(`${WORK_BODY}\nreturn value;`, { onCall: immediate, check: false });
      if (!result.success || result.result !== WORK_RESULT)
        throw new Error(`bench: the work program failed: ${JSON.stringify(result.error ?? result.result)}`);
    });
    const bareWorkMs = await bareWork(engine, 7);

    const rows = [
      ['Cold run, trivial program: `node -e` subprocess per run (baseline)', msText(subprocessMs), '1×'],
      ['Cold run: worker thread per run', msText(threadMs), `${(subprocessMs / threadMs).toFixed(1)}× faster`],
      [
        'Cold run: pooled sandbox worker, runs back to back (fresh isolate made on demand)',
        msText(pooledMs),
        `${(subprocessMs / pooledMs).toFixed(1)}× faster (target ≥ 20×)`,
      ],
      [
        'Cold run: pooled sandbox worker, 5 ms idle before each run (fresh isolate prepared)',
        msText(pooledIdleMs),
        `${(subprocessMs / pooledIdleMs).toFixed(1)}× faster (target ≥ 20×)`,
      ],
      ['Cold run: in-process isolate, back to back', msText(inProcessMs), `${(subprocessMs / inProcessMs).toFixed(1)}× faster`],
      [
        'Cold run: in-process isolate, 5 ms idle before each run',
        msText(inProcessIdleMs),
        `${(subprocessMs / inProcessIdleMs).toFixed(1)}× faster`,
      ],
      [
        `Sandbox worker memory, idle after runs (mean of ${memories.length} workers, /proc/<pid>/smaps_rollup)`,
        `VmRSS ${workerMemory.rss.toFixed(1)} MB, of which ${workerMemory.sharedClean.toFixed(1)} MB shared clean pages (node, isolated-vm); private ${workerMemory.private.toFixed(1)} MB; PSS ${workerMemory.pss.toFixed(1)} MB`,
        `private ${(workerMemory.private / 50).toFixed(2)}×, VmRSS ${(workerMemory.rss / 50).toFixed(2)}× the 50 MB target`,
      ],
      ['1,000 sequential calls, per call: in-process', us(sequentialInProcess), 'target < 20 µs'],
      [
        '1,000 sequential calls, per call: worker',
        us(sequentialWorker),
        `${(sequentialWorker / sequentialInProcess).toFixed(1)}× in-process (target < 100 µs)`,
      ],
      [
        '100 parallel calls, per call: in-process',
        us(parallelInProcess),
        `${(parallelInProcess / sequentialInProcess).toFixed(2)}× sequential`,
      ],
      ['100 parallel calls, per call: worker', us(parallelWorker), `${(parallelWorker / sequentialWorker).toFixed(2)}× sequential`],
      [
        '10 parallel 100 ms calls, whole run: in-process',
        msText(overlapInProcess),
        `${(overlapInProcess / 1000).toFixed(2)}× of the 1,000 ms sum`,
      ],
      ['10 parallel 100 ms calls, whole run: worker', msText(overlapWorker), `${(overlapWorker / 1000).toFixed(2)}× of the 1,000 ms sum`],
      [
        "Stuck run: timeout reported → the pool's next trivial run done (median of 3)",
        msText(replacementMs),
        `${(replacementMs / 1000).toFixed(2)}× of the 1 s target`,
      ],
      [
        'Compile a 200-line program (parse, rewrite, esbuild, source map)',
        msText(compileMs),
        `${(compileMs / pooledMs).toFixed(2)}× a pooled cold run`,
      ],
      ['Type-check: first check (a fresh check worker: loads TypeScript, binds its lib)', msText(coldCheckMs), '1×'],
      ['Type-check: warm check', msText(warmCheckMs), `${(warmCheckMs / coldCheckMs).toFixed(3)}× the first`],
      [
        `A program's own work (3e5 pushes, fill, filter/map, spread, a Map, join/split, JSON, a regex), in-process on ${engine}`,
        msText(workMs),
        `${(workMs / bareWorkMs).toFixed(2)}× the same code in a bare ${engine} context (${msText(bareWorkMs)}, no bootstrap; the run includes its own start)`,
      ],
    ];
    return [
      '## Runtime (sandbox)',
      '',
      `Node ${process.version}, ${(await import('node:os')).availableParallelism()} CPUs. Medians; per-call figures subtract the trivial run of the same mode.`,
      '',
      '| measurement | value | ratio |',
      '|---|---|---|',
      ...rows.map((row) => `| ${row.join(' | ')} |`),
      '',
    ].join('\n');
  } finally {
    await pooled.close();
    await inProcess.close();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  console.log(await run());
}
