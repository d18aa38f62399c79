/**
 * The hostile suites about the sandbox itself (isolate-boundary, hostile-code, sandbox-globals, the
 * worker's and placement's) on QuickJS: the files name no engine, so AGENT_SPACES_ENGINE=quickjs runs every
 * case of them on QuickJS (their default, auto, is isolated-vm on this machine's Node). They run in a child vitest (one
 * engine per process, as CI would with the variable) and every case must pass.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FILES = [
  'test/hostile/isolate-boundary.test.ts',
  'test/hostile/hostile-code.test.ts',
  'test/hostile/sandbox-globals.test.ts',
  'test/hostile/hostile-worker.test.ts',
  'test/hostile/worker-placement.test.ts',
];

interface JsonReport {
  success: boolean;
  numTotalTests: number;
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  testResults: { name: string; status: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
}

it('passes every case of the sandbox hostile suites on QuickJS', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'quickjs-hostile-'));
  try {
    const outputFile = join(dir, 'report.json');
    // The child is a fresh vitest, not a worker of this one: none of this run's VITEST_* settings.
    const env: NodeJS.ProcessEnv = { ...process.env, AGENT_SPACES_ENGINE: 'quickjs' };
    for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key];
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...FILES, '--reporter=json', `--outputFile=${outputFile}`],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const report = JSON.parse(await readFile(outputFile, 'utf8')) as JsonReport;
    const failed = report.testResults.flatMap((file) =>
      file.assertionResults
        .filter((test) => test.status !== 'passed')
        .map((test) => `${test.fullName}: ${test.status} ${test.failureMessages.join('\n').slice(0, 500)}`),
    );
    expect(failed, output.slice(-4000)).toEqual([]);
    expect(exitCode).toBe(0);
    expect(report).toMatchObject({ success: true, numFailedTests: 0, numPendingTests: 0 });
    // Every file ran, with its cases (106 when this was written).
    expect(report.testResults.map((file) => file.name.slice(ROOT.length)).sort()).toEqual([...FILES].sort());
    expect(report.numPassedTests).toBe(report.numTotalTests);
    expect(report.numTotalTests).toBeGreaterThanOrEqual(100);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 900_000);
