/**
 * The hostile suites about the sandbox itself, on every registered engine (runtime/engines.ts) in the
 * placements each suite exercises. The files name no engine: the main run runs them on the engine its
 * sandboxes resolve to (`auto`, or AGENT_SPACES_ENGINE), and each other engine runs them in a child
 * vitest with AGENT_SPACES_ENGINE=<engine> (one engine per process, as CI would). Every case must pass.
 *
 * Placements: `worker` (a sandbox worker process), `thread` (a sandbox worker on a thread of the host's
 * process, every engine on that thread) and `in-process` (the host's process: isolated-vm on its own
 * threads, QuickJS on the host's thread). Which files
 * are engine-independent, and why they are not run per engine:
 * - hostile-worker, worker-channel: the host's reading of a lying worker and of the pipe or port
 *   (hostile-worker starts fake workers that speak the protocol, as processes and as threads): host code,
 *   the same whatever engine a real worker runs;
 * - worker-placement, quickjs-engine: name their engine (QuickJS) themselves;
 * - co-resident-runs: runs sharing a worker on the default engine, with V8-specific cases (a fatal V8
 *   error, a known limit kept as it.fails); QuickJS's co-resident runs are in quickjs-engine;
 * - host-resources: the host's own bounds (arguments waiting for a slot) and V8 aborting the host;
 * - every other hostile file (access control, secrets, redaction, MCP, HTTP, A2A, the store, the studio,
 *   tool definitions): the bridge, servers and sources, which a program reaches only through a call.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EngineName, EnginePlacement } from '../../runtime/engine.js';
import { ENGINE_NAMES, selectEngine } from '../../runtime/engines.js';
import { contractEngine } from '../../runtime/sandbox.contract.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The sandbox-facing hostile files and the placements each exercises (its describe blocks name them when more than one). */
const SANDBOX_SUITES: Record<string, readonly EnginePlacement[]> = {
  'test/hostile/isolate-boundary.test.ts': ['worker', 'thread', 'in-process'],
  'test/hostile/hostile-code.test.ts': ['worker', 'thread'],
  'test/hostile/sandbox-globals.test.ts': ['worker', 'thread', 'in-process'],
  'test/hostile/run-outcome.test.ts': ['worker', 'thread', 'in-process'],
};
const FILES = Object.keys(SANDBOX_SUITES);
const PLACEMENTS = [...new Set(Object.values(SANDBOX_SUITES).flat())];

interface JsonReport {
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: { name: string; status: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

/** The engine this run's sandboxes get where a file names none, in every placement (undefined when they differ). */
async function mainRunEngine(): Promise<EngineName | undefined> {
  const choice = contractEngine();
  if (choice !== 'auto') return choice;
  const engines = await Promise.all(PLACEMENTS.map(async (placement) => (await selectEngine('auto', placement)).engine));
  return engines.every((engine) => engine === engines[0]) ? engines[0] : undefined;
}

/** Runs the sandbox hostile files on `engine` in a child vitest; returns its report and wall time. */
async function runOnEngine(engine: EngineName): Promise<{ report: JsonReport; output: string; exitCode: number | null; seconds: number }> {
  const dir = await mkdtemp(join(tmpdir(), `${engine}-hostile-`));
  try {
    const outputFile = join(dir, 'report.json');
    // The child is a fresh vitest, not a worker of this one: none of this run's VITEST_* settings.
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_SPACES_ENGINE: engine };
    for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key];
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...FILES, '--reporter=json', `--outputFile=${outputFile}`],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const seconds = (performance.now() - started) / 1000;
    return { report: JSON.parse(await readFile(outputFile, 'utf8')) as JsonReport, output, exitCode, seconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('sandbox hostile suites on every engine', () => {
  for (const engine of ENGINE_NAMES) {
    it(`${engine}: every case passes in ${PLACEMENTS.join(', ')}`, async () => {
      if ((await mainRunEngine()) === engine) {
        // This run's own sandboxes are on this engine: the files run on it beside this one.
        for (const placement of PLACEMENTS) expect((await selectEngine(contractEngine(), placement)).engine, placement).toBe(engine);
        return;
      }
      const { report, output, exitCode, seconds } = await runOnEngine(engine);
      console.log(`[hostile-matrix] ${engine}: ${report.numPassedTests}/${report.numTotalTests} cases in ${seconds.toFixed(1)} s`);
      const failed = report.testResults.flatMap((file) =>
        file.assertionResults
          .filter((test) => test.status !== 'passed')
          .map((test) => `${test.fullName}: ${test.status} ${test.failureMessages.join('\n').slice(0, 500)}`),
      );
      expect(failed, output.slice(-4000)).toEqual([]);
      expect(exitCode).toBe(0);
      expect(report).toMatchObject({ success: true, numFailedTests: 0, numPendingTests: 0 });
      expect(report.testResults.map((file) => file.name.slice(ROOT.length)).sort()).toEqual([...FILES].sort());
      expect(report.numPassedTests).toBe(report.numTotalTests);
      // Each placement a file exercises ran (files with more than one name it in their describe blocks).
      for (const file of report.testResults) {
        const placements = SANDBOX_SUITES[file.name.slice(ROOT.length)] ?? [];
        if (placements.length < 2) continue;
        for (const placement of placements)
          expect(
            file.assertionResults.some((test) => test.fullName.includes(`(${placement})`)),
            `${file.name} ${placement}`,
          ).toBe(true);
      }
      expect(report.numTotalTests).toBeGreaterThanOrEqual(100);
    }, 900_000);
  }
});
