/**
 * Runs that share a sandbox worker (up to `runsPerWorker` of them, possibly of different callers): one
 * run's program must not end another, steer its timers, or crash the worker for the others; a fatal V8
 * error costs that worker only; the worker holds none of the host's environment; and each later run
 * gets a pristine bootstrap. An `it.fails` is a known limit (docs/SECURITY.md, "Out of scope"): it
 * keeps the limit visible and fails the suite once the limit no longer holds.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { CapabilityCallHandler } from '../../core/protocol.js';
import type { RunResult } from '../../core/run-result.js';
import { createSandbox, type WorkerSandbox } from '../../runtime/create-sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../../runtime/sandbox.contract.js';
import { TIMER_LIMITS } from '../../runtime/host/sandbox-timers.js';

const HEALTHY = "import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 2 });";

describe('one worker, several runs', () => {
  const slowVictim = "import { sleep } from '@capabilities/math';\nawait sleep({ ms: 100 });\nreturn 'victim done';";

  // A call's arguments are measured in the isolate and again as frame bytes on the pipe. Multi-byte
  // characters make the two counts differ (UTF-16 units, UTF-8 bytes): a call past the frame limit must
  // fail for its program only, not make the host kill a worker that other runs share.
  it('arguments of multi-byte characters are refused for the program only, not by killing the shared worker', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const victim = sandbox.run(slowVictim, { onCall: createFixtureHost().onCall });
      const attacker = sandbox.run(
        "import { echo } from '@capabilities/math';\nconst value = '\\u0800'.repeat(1_000_000);\ntry { await echo({ value }); return 'sent'; } catch (error: any) { return error.code; }",
        { onCall: createFixtureHost().onCall },
      );
      const [victimResult, attackerResult] = await Promise.all([victim, attacker]);
      // Were the arguments counted in UTF-16 units, the frame would pass the host's limit and both runs would end SANDBOX_CRASHED.
      expect(victimResult).toMatchObject({ success: true, result: 'victim done' });
      expect(attackerResult).toMatchObject({ success: true, result: 'INVALID_ARGUMENTS' });
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  // Known limit: runs of one worker share its thread, so a program that computes holds it for its whole
  // time limit, and a co-resident run's 100 ms call cannot be answered meanwhile (it ends TIMEOUT). The
  // worker is not killed while the computing run still runs: that run ends with its own TIMEOUT.
  it.fails(
    'a program that computes does not make a co-resident run time out',
    async () => {
      const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
      try {
        await sandbox.ready();
        // The victim's call is answered only after the attacker has made its own call, the line before its
        // loop: the answer then reaches a worker whose thread the attacker holds, whatever the machine's speed.
        let attackerCalled!: () => void;
        const attackerStarted = new Promise<void>((resolve) => (attackerCalled = resolve));
        const victimHost = createFixtureHost();
        const victim = sandbox.run(slowVictim, {
          onCall: async (params, context) => {
            await attackerStarted;
            return victimHost.onCall(params, context);
          },
          limits: { timeoutMs: 2_000 },
        });
        const attackerHost = createFixtureHost();
        const attacker = sandbox.run("import { add } from '@capabilities/math';\nawait add({ a: 1, b: 1 });\nwhile (true) {}", {
          onCall: async (params, context) => {
            const value = await attackerHost.onCall(params, context);
            attackerCalled();
            return value;
          },
          limits: { timeoutMs: 6_000 },
        });
        const [victimResult, attackerResult] = await Promise.all([victim, attacker]);
        expect(victimResult).toMatchObject({ success: true, timedOut: false, result: 'victim done' });
        expect(attackerResult).toMatchObject({ success: false, timedOut: true, error: { code: 'TIMEOUT' } });
      } finally {
        await sandbox.close();
      }
    },
    120_000,
  );

  it('a V8 fatal error in a worker costs that worker only; the host survives and the pool recovers', async () => {
    const sandbox: WorkerSandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const before = sandbox.pids();
      // "Fatal JavaScript invalid size error" (crbug.com/1201626): an abort, not a catchable limit.
      const result = await sandbox.run("return 'ab'.repeat(2 ** 27).split('').length;", { onCall: createFixtureHost().onCall });
      expect(result).toMatchObject({ success: false, error: { code: 'SANDBOX_CRASHED' } });
      await sandbox.ready();
      expect(sandbox.pids().filter((pid) => !before.includes(pid))).toHaveLength(1);
      expect(await sandbox.run(HEALTHY, { onCall: createFixtureHost().onCall })).toMatchObject({ success: true, result: 3 });
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  // The worker is the process that runs hostile code: it must not hold the host's environment (model
  // keys, MCP server secrets), which an isolate escape or a leak through its stderr would reach.
  it('a sandbox worker does not inherit the host environment (secrets)', async () => {
    process.env['ATTACK_PASS_SECRET'] = 'sk-attack-pass-0123456789';
    const sandbox: WorkerSandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
    try {
      await sandbox.ready();
      const environ = readFileSync(`/proc/${sandbox.pids()[0]}/environ`, 'utf8');
      expect(environ).not.toContain('sk-attack-pass-0123456789');
    } finally {
      delete process.env['ATTACK_PASS_SECRET'];
      await sandbox.close();
    }
  });
});

describe('the sandbox Web globals (one worker, several runs)', () => {
  const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
  afterAll(async () => {
    await sandbox.close();
  });

  // A timer's delay is converted with the program's valueOf, which may start timers itself: nesting must
  // not pass the pending and per-run caps, and every timer the isolate accepted must be one the host
  // fires (no timer silently dropped past the host's own cap, no TIMER_LIMIT missing).
  it('a delay whose valueOf starts timers cannot pass the pending cap; every accepted timer fires', async () => {
    const code = [
      "import { sleep } from '@capabilities/math';",
      'let made = 0, fired = 0, refused = 0, depth = 0;',
      'const delay = { valueOf(): number { if (depth++ < 1_500) { try { setTimeout(() => { fired++; }, delay as never); made++; } catch (error) { if ((error as { code?: string }).code === "TIMER_LIMIT") refused++; } } return 1; } };',
      'try { setTimeout(() => { fired++; }, delay as never); made++; } catch { refused++; }',
      // Waits for the timers by an event (each answer of the host is a moment for them to fire), not by
      // a time: a timer that never fires leaves the program waiting until its run times out.
      'while (fired < made) await sleep({ ms: 10 });',
      'return { made, fired, refused };',
    ].join('\n');
    const result = await sandbox.run(code, { onCall: createFixtureHost().onCall });
    expect(result.error).toBeUndefined();
    const outcome = result.result as { made: number; fired: number; refused: number };
    expect(outcome.made).toBeLessThanOrEqual(TIMER_LIMITS.maxPending);
    expect(outcome.refused).toBeGreaterThan(0);
    expect(outcome.fired).toBe(outcome.made);
  });

  // The isolate and the worker's Node share one stack (THREADING 'caller'). A program that calls
  // setTimeout at the brink of a stack overflow must not make the host's timer code overflow halfway
  // through Node's timer-list update, which would leave a co-resident run's timers never firing: timer
  // requests are applied from a promise job, on a fresh stack.
  it('a program that calls setTimeout with a full stack does not stop the timers of a co-resident run', async () => {
    const hostile = [
      "import { add } from '@capabilities/math';",
      'let made = 0, fired = 0;',
      'const deep = (n: number): void => { try { deep(n + 1); } catch { /* the stack is full */ } if (made < 900) { try { setTimeout(() => { fired++; }, 1); made++; } catch { /* overflowed */ } } };',
      'deep(0);',
      'await add({ a: 1, b: 1 });',
      'return { made, fired };',
    ].join('\n');
    const victim = 'await new Promise((resolve) => setTimeout(resolve, 1));\nreturn "victim timer fired";';
    // A fresh worker each time: its first run is where the overflow lands inside Node's timer code.
    for (let attempt = 0; attempt < 2; attempt++) {
      const fresh = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 1 });
      try {
        await fresh.ready();
        let victimRun: Promise<RunResult> | undefined;
        const attackerHost = createFixtureHost();
        // The victim starts once the attacker's timers are set (its call), and the attacker's call is
        // answered only when the victim has ended: both share the worker throughout.
        const onCall: CapabilityCallHandler = async (params, context) => {
          victimRun = fresh.run(victim, { onCall: createFixtureHost().onCall, limits: { timeoutMs: 5_000 } });
          await victimRun;
          return attackerHost.onCall(params, context);
        };
        const attacker = await fresh.run(hostile, { onCall, limits: { timeoutMs: 20_000 } });
        expect(attacker.success, attempt.toString()).toBe(true);
        expect(await victimRun, attempt.toString()).toMatchObject({ success: true, result: 'victim timer fired' });
      } finally {
        await fresh.close();
      }
    }
  }, 60_000);

  it('a co-resident run cannot clear or fire the timers of another run by guessing their ids', async () => {
    let victimArmed!: () => void;
    const armed = new Promise<void>((resolve) => (victimArmed = resolve));
    const victimHost = createFixtureHost();
    const onVictimCall: CapabilityCallHandler = async (params, context) => {
      const value = await victimHost.onCall(params, context);
      victimArmed();
      return value;
    };
    // The victim arms its timers (ids 1 and 2 in its isolate), then tells the host; the attacker's call is
    // answered only then, so its sweep of ids runs while the victim's timers are pending.
    const victim = sandbox.run(
      "import { add } from '@capabilities/math';\nlet ticks = 0;\nconst interval = setInterval(() => ticks++, 5);\nconst done = new Promise((resolve) => setTimeout(() => resolve('victim timer'), 40));\nawait add({ a: 1, b: 1 });\nconst value = await done;\nclearInterval(interval);\nreturn [value, ticks > 0];",
      { onCall: onVictimCall },
    );
    const attackerHost = createFixtureHost();
    const attacker = sandbox.run(
      "import { add } from '@capabilities/math';\nawait add({ a: 2, b: 2 });\nfor (let id = -5; id < 5_000; id++) { clearTimeout(id); clearInterval(id); }\nreturn 'swept';",
      {
        onCall: async (params, context) => {
          await armed;
          return attackerHost.onCall(params, context);
        },
      },
    );
    const [victimResult, attackerResult] = await Promise.all([victim, attacker]);
    expect(attackerResult).toMatchObject({ success: true, result: 'swept' });
    expect(victimResult).toMatchObject({ success: true, result: ['victim timer', true] });
  });

  it('a later run in the same worker gets a pristine bootstrap (code cache) whatever an earlier run did to its world', async () => {
    const tamper = [
      'const P = Object.prototype as Record<string, unknown>;',
      "Object.defineProperty(P, 'toJSON', { value() { return { code: 'TIMEOUT' }; }, configurable: true });",
      "(URL.prototype as unknown as Record<string, unknown>).tampered = true; (globalThis as Record<string, unknown>).setTimeout = () => 'tampered';",
      "Function.prototype.toString = () => 'tampered'; JSON.stringify = () => '\"tampered\"'; Map.prototype.get = () => 'tampered';",
      "try { (globalThis as Record<string, unknown>).__agentSpaces = { call: () => 'forged' }; } catch { /* frozen */ }",
      "return 'tampered';",
    ].join('\n');
    expect(await sandbox.run(tamper, { onCall: createFixtureHost().onCall })).toMatchObject({ success: true });
    const check = [
      "import { add } from '@capabilities/math';",
      "const clean = !('toJSON' in Object.prototype) && !('tampered' in URL.prototype) && setTimeout.name === 'setTimeout' && typeof new Map([[1, 2]]).get(1) === 'number';",
      'const fromTimer = await new Promise((resolve) => setTimeout(() => resolve(new URL("https://a.example/x?y=1").searchParams.get("y")), 1));',
      'return { clean, fromTimer, sum: await add({ a: 1, b: 2 }), json: JSON.stringify({ a: 1 }) };',
    ].join('\n');
    expect(await sandbox.run(check, { onCall: createFixtureHost().onCall })).toMatchObject({
      success: true,
      result: { clean: true, fromTimer: '1', sum: 3, json: '{"a":1}' },
    });
  });

  it("a timer or microtask callback that throws a host code ends the run as RUNTIME_ERROR, never as the host's code", async () => {
    for (const where of [
      'setTimeout(() => { throw forged; }, 1)',
      'queueMicrotask(() => { throw forged; })',
      'setInterval(() => { throw forged; }, 1)',
    ]) {
      const code = `const forged = Object.assign(new Error('forged'), { name: 'SandboxTimeoutError', code: 'TIMEOUT' });\n${where};\nawait new Promise(() => {});`;
      const result = await sandbox.run(code, { onCall: createFixtureHost().onCall, limits: { timeoutMs: 20_000 } });
      expect(result, where).toMatchObject({ success: false, timedOut: false, error: { code: 'RUNTIME_ERROR', message: 'forged' } });
    }
  });
});
