/**
 * A sandbox worker started before its pool (the CLI's `run` starts it while the space loads): the first
 * pool of the same engine takes it and runs on it; a pool of another engine kills it and starts its own.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
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
  it('does not keep its process alive: a process that prestarts one and ends exits, and the worker with it', async () => {
    // A command that fails after the prestart (a refused option) must still end (CI: `run --studio <bad>` hung).
    const script = `const { prestartSandboxWorker } = await import(${JSON.stringify(new URL('./prestart.ts', import.meta.url).href)});
prestartSandboxWorker('quickjs');
const { readdirSync, readFileSync } = await import('node:fs');
const children = readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry)).filter((entry) => {
  try { return Number(readFileSync('/proc/' + entry + '/stat', 'utf8').split(') ')[1].split(' ')[1]) === process.pid; } catch { return false; }
});
console.log(JSON.stringify(children.map(Number)));`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    clearTimeout(timer);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const workers = JSON.parse(stdout) as number[];
    expect(workers.length).toBeGreaterThan(0);
    for (const pid of workers) await expect.poll(() => alive(pid)).toBe(false);
  });

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

  it('is killed when the environment a worker would get has changed since it started (a warm process of the CLI daemon)', async () => {
    const before = await sandboxWorkerPids();
    const tz = process.env['TZ'];
    prestartSandboxWorker('quickjs');
    const [prestarted] = (await sandboxWorkerPids()).filter((pid) => !before.includes(pid));
    expect(prestarted).toBeGreaterThan(0);
    // The daemon's warm process takes the command line's environment after the prestart.
    process.env['TZ'] = tz === 'Pacific/Chatham' ? 'Asia/Kathmandu' : 'Pacific/Chatham';
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', engine: 'quickjs', workers: 1 });
    try {
      expect(await sandbox.run('return 6 * 7;', { onCall: createFixtureHost().onCall })).toMatchObject({ success: true, result: 42 });
      expect(sandbox.pids()).not.toContain(prestarted);
      await expect.poll(() => alive(prestarted ?? -1)).toBe(false);
    } finally {
      if (tz === undefined) delete process.env['TZ'];
      else process.env['TZ'] = tz;
      await sandbox.close();
    }
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
