/**
 * Sandbox workers that lie (test/fixtures/hostile-worker.mjs): oversized frames, malformed or unknown
 * messages, forged error codes, floods of logs and calls, results past the output limit, a worker that
 * blocks its own event loop. The host reads every frame against the contract: only that run fails, the
 * worker is replaced when it broke the protocol, and a real sandbox keeps working afterwards. Every case
 * runs on both transports: a worker process (frames on a pipe) and a sandbox thread (frames on its port).
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityCallHandler } from '../../core/protocol.js';
import type { RunResult } from '../../core/run-result.js';
import { createSandbox, type WorkerSandbox } from '../../runtime/create-sandbox.js';
import { DEFAULT_RUN_LIMITS, type RunLimits } from '../../runtime/sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import { createWorkerPoolExecutor } from '../../runtime/worker-pool/worker-pool.js';
import type { WorkerTransportKind } from '../../runtime/worker-pool/worker-transport.js';
import { REPO } from '../support/example-space.js';

const HOSTILE_WORKER = path.join(REPO, 'test', 'fixtures', 'hostile-worker.mjs');

let healthy: WorkerSandbox;
beforeAll(() => {
  healthy = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
});
afterAll(async () => {
  await healthy.close();
});
afterEach(async () => {
  const result = await healthy.run("import { add } from '@capabilities/math';\nreturn await add({ a: 2, b: 3 });", {
    onCall: createFixtureHost().onCall,
  });
  expect(result).toMatchObject({ success: true, result: 5 });
});

async function runAgainst(
  transport: WorkerTransportKind,
  mode: string,
  options: { limits?: Partial<RunLimits>; onCall?: CapabilityCallHandler } = {},
): Promise<{ result: RunResult; pidsBefore: number[]; pidsAfter: number[] }> {
  const pool = createWorkerPoolExecutor({ workers: 1, transport, entry: { file: HOSTILE_WORKER, args: [mode] } });
  try {
    await pool.ready();
    const pidsBefore = pool.pids();
    const result = await pool.execute(
      {
        runId: `hostile-${mode}`,
        js: 'export default async () => 1;',
        outDir: FIXTURE_OUT_DIR,
        limits: { ...DEFAULT_RUN_LIMITS, timeoutMs: 5_000, ...options.limits },
      },
      options.onCall ?? createFixtureHost().onCall,
    );
    await pool.ready();
    return { result, pidsBefore, pidsAfter: pool.pids() };
  } finally {
    await pool.close();
  }
}

for (const transport of ['process', 'thread'] as const) {
  describe(`a worker that breaks the protocol (${transport})`, () => {
    it('is killed for announcing a frame past the limit, without the host buffering it', async () => {
      const before = process.memoryUsage().rss;
      const { result, pidsBefore, pidsAfter } = await runAgainst(transport, 'huge-frame');
      expect(result).toMatchObject({
        success: false,
        error: {
          code: 'SANDBOX_CRASHED',
          message: expect.stringMatching(
            transport === 'process'
              ? /broke the host protocol \(a frame of 2147483647 bytes/
              : /broke the host protocol \(a frame of 4194\d{3} bytes/,
          ),
        },
      });
      expect(pidsAfter.some((pid) => !pidsBefore.includes(pid))).toBe(true);
      expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    });
    it('is killed for a header the contract does not allow', async () => {
      for (const mode of ['bad-header', 'unknown-message', 'not-json-result']) {
        const { result } = await runAgainst(transport, mode);
        expect(result, mode).toMatchObject({
          success: false,
          error: { code: 'SANDBOX_CRASHED', message: expect.stringMatching(/broke the host protocol/) },
        });
      }
    });
    it('is killed for what is not a frame, and for text that is not UTF-8', async () => {
      const reasons = {
        'not-frames': transport === 'process' ? /a frame whose header is longer than the frame/ : /a message that is not a list of frames/,
        'lone-surrogate': /a frame that is not UTF-8 text/,
      };
      for (const [mode, reason] of Object.entries(reasons)) {
        const { result, pidsBefore, pidsAfter } = await runAgainst(transport, mode);
        expect(result, mode).toMatchObject({ success: false, error: { code: 'SANDBOX_CRASHED', message: expect.stringMatching(reason) } });
        expect(
          pidsAfter.some((pid) => !pidsBefore.includes(pid)),
          mode,
        ).toBe(true);
      }
    });
    it('is killed when it blocks its own event loop: its run times out, and a new worker takes its place', async () => {
      const { result, pidsBefore, pidsAfter } = await runAgainst(transport, 'busy-loop', { limits: { timeoutMs: 300 } });
      expect(result).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      expect(pidsAfter).toHaveLength(1);
      expect(pidsAfter.filter((pid) => !pidsBefore.includes(pid))).toHaveLength(1);
    });
  });

  describe(`a worker that lies within the protocol (${transport})`, () => {
    it('cannot report a code the host never sent, nor a timeout, and its error is size-capped', async () => {
      const { result } = await runAgainst(transport, 'forged-code');
      expect(result).toMatchObject({ success: false, timedOut: false, error: { code: 'RUNTIME_ERROR', message: 'forged' } });
      expect(result.error?.stack?.length).toBeLessThanOrEqual(64 * 1024);
    });
    it('cannot log past the output limit: the host counts again and stops the run', async () => {
      const { result } = await runAgainst(transport, 'log-flood', { limits: { maxOutputBytes: 1_000_000 } });
      expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
      expect(result.logs.length).toBeLessThan(10);
    });
    it('cannot return more than the output limit', async () => {
      const { result } = await runAgainst(transport, 'big-result', { limits: { maxOutputBytes: 1_000_000 } });
      expect(result).toMatchObject({ success: false, error: { code: 'OUTPUT_LIMIT' } });
    });
    it('cannot make the host perform more calls than the run allows', async () => {
      let performed = 0;
      let active = 0;
      let maxActive = 0;
      const onCall: CapabilityCallHandler = async () => {
        performed++;
        maxActive = Math.max(maxActive, ++active);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        return 3;
      };
      const { result } = await runAgainst(transport, 'call-flood', { limits: { maxCalls: 10, maxConcurrentCalls: 4 }, onCall });
      expect(result).toMatchObject({ success: true, result: 'flooded', calls: 10 });
      expect(performed).toBe(10);
      expect(maxActive).toBeLessThanOrEqual(4);
    });
    it('is killed and replaced when it never reports its isolate stopped after a run', async () => {
      const { result, pidsBefore, pidsAfter } = await runAgainst(transport, 'no-release');
      expect(result).toMatchObject({ success: true, result: 'stuck' });
      expect(pidsAfter).toHaveLength(1);
      expect(pidsAfter.filter((pid) => !pidsBefore.includes(pid))).toHaveLength(1);
    });
    it("is given none of the host's environment", async () => {
      process.env['AGENT_SPACES_TEST_SECRET'] = 'sk-host-only';
      try {
        const { result } = await runAgainst(transport, 'env');
        expect(result).toMatchObject({ success: true });
        expect(result.result).not.toContain('AGENT_SPACES_TEST_SECRET');
        // A thread's process.env is its own, with the few names a worker process keeps (those Node needs).
        for (const name of result.result as string[]) expect(['PATH', 'TZ', 'LANG', 'LC_ALL', 'TMPDIR', 'NODE_PATH']).toContain(name);
      } finally {
        delete process.env['AGENT_SPACES_TEST_SECRET'];
      }
    });
    it('cannot call on behalf of another run', async () => {
      let performed = 0;
      const { result } = await runAgainst(transport, 'other-run', { onCall: async () => ++performed });
      expect(result).toMatchObject({ success: true, result: 'mine' });
      expect(performed).toBe(0);
    });
  });
}
