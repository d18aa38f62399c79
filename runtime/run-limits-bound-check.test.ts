/**
 * Issue 28, item 9: a run's wall clock covers everything done for it. Its type-check is bounded by the
 * run's own timeoutMs, not by the checker's 10 s default.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createSandbox } from './create-sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from './sandbox.contract.js';

/** Its check takes far longer than 10 s (runtime/type-check.test.ts stops it at 5). */
const PATHOLOGICAL = `type Explode<T, N extends unknown[] = []> = N['length'] extends 24 ? T : Explode<[T, T], [...N, 0]> | Explode<{ a: T }, [...N, 0]>;
declare const x: Explode<string>;
const y: number = x;
return y;`;

describe('a run bounds its type-check', () => {
  const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine: 'quickjs' });
  afterAll(() => sandbox.close());

  it("stops the check at the run's own time limit, then runs healthy", async () => {
    // Loads TypeScript first: a first check's load is not part of any run's limit.
    expect(await sandbox.run('return 1;', { onCall: createFixtureHost().onCall, check: true })).toMatchObject({ success: true, result: 1 });
    const result = await sandbox.run(PATHOLOGICAL, { onCall: createFixtureHost().onCall, check: true, limits: { timeoutMs: 2_000 } });
    expect(result).toMatchObject({ success: false, calls: 0, error: { code: 'TYPE_CHECK_FAILED' } });
    // Within what was left of 2 s, not the checker's default of 10 s.
    expect(result.error?.message).toMatch(/took longer than (1(\.\d+)?|2) s and was stopped/);
    expect(
      await sandbox.run("import { add } from '@capabilities/math';\nreturn await add({ a: 2, b: 3 });", {
        onCall: createFixtureHost().onCall,
        check: true,
      }),
    ).toMatchObject({ success: true, result: 5 });
  });
});
