/**
 * What crosses as JSON on QuickJS when a program put index setters on the prototypes where the guest's
 * cheap check looks for them (runtime/guest/src/json.ts, hasIndexKey): QuickJS's JSON.stringify fills
 * an internal array with [[Set]], so a setter at index n runs once the data nests n + 1 levels deep,
 * unless the guest notices the key and serialises with its own code. And the depth check that walks a
 * result or arguments (nestsDeeper) still refuses deep data when Array.prototype has setters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../create-sandbox.js';
import type { Sandbox } from '../sandbox.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from '../sandbox.contract.js';

/** Only catches a hang. */
const HANG = 60_000;
/** The run's error for a result that nests past the depth limit. */
const TOO_DEEP = { code: 'RESULT_NOT_SERIALIZABLE', message: expect.stringContaining('nests too deeply') };

/** Data nested `levels` deep, ending in `leaf`: `{ d: { d: … leaf } }`. */
const NESTED = 'const nest = (levels, leaf) => { let v = leaf; for (let i = 0; i < levels; i++) v = { d: v }; return v; };\n';

const poison = (target: string, key: string): string =>
  `Object.defineProperty(${target}, '${key}', { set() { throw new Error('setter ${key} ran'); }, configurable: true });\n`;

describe('QuickJS JSON with index setters on the prototypes', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine: 'quickjs' });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const run = (code: string) =>
    sandbox.run(`import { echo } from '@capabilities/math';\n${NESTED}${code}`, { onCall: createFixtureHost().onCall, check: false });

  it.each([
    ['Object.prototype at index 3 only (the first of its own keys)', poison('Object.prototype', '3')],
    ['Array.prototype at index 6 (its length becomes 7)', poison('Array.prototype', '6')],
    [
      'Array.prototype at index 4 after its length was raised to 1000 (its keys are listed)',
      'Array.prototype.length = 1000;\n' + poison('Array.prototype', '4'),
    ],
  ])(
    'sends and returns nested data without running a setter on %s',
    async (_label, setup) => {
      const result = await run(`${setup}const echoed = await echo({ value: nest(10, 'in') });\nreturn { echoed, out: nest(10, 'out') };`);
      expect(result.error).toBeUndefined();
      let echoed: unknown = (result.result as { echoed: unknown }).echoed;
      let out: unknown = (result.result as { out: unknown }).out;
      for (let level = 0; level < 10; level++) {
        echoed = (echoed as { d: unknown }).d;
        out = (out as { d: unknown }).d;
      }
      expect([echoed, out]).toEqual(['in', 'out']);
    },
    HANG,
  );

  it(
    'still refuses a result nested past the depth limit when Array.prototype has setters',
    async () => {
      const result = await run(`${poison('Array.prototype', '0')}return nest(1500, 1);`);
      expect(result.error).toMatchObject(TOO_DEEP);
    },
    HANG,
  );

  it(
    'still refuses arguments nested past the depth limit, as an error the program catches',
    async () => {
      const result = await run(
        `${poison('Array.prototype', '1')}try { await echo({ value: nest(1500, 1) }); return 'sent'; } catch (error) { return [error.code, String(error.message).includes('nest too deeply')]; }`,
      );
      expect(result.result).toEqual(['INVALID_ARGUMENTS', true]);
    },
    HANG,
  );
});

// The depth check walks data as a tree first (no set of seen objects), and hands shared objects, cycles
// and deep data over to the walk that remembers what it saw (runtime/guest/src/json.ts, nestsDeeper).
describe('the QuickJS depth check on shared and cyclic data', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine: 'quickjs' });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const run = (code: string) => sandbox.run(`${NESTED}${code}`, { onCall: createFixtureHost().onCall, check: false });

  it(
    'returns one object shared on several paths, each within the limit',
    async () => {
      const result = await run('const shared = nest(400, 1);\nreturn [shared, { twice: shared }, nest(500, shared === shared)];');
      expect(result.error).toBeUndefined();
      expect(JSON.stringify(result.result)).toContain('{"d":1}');
    },
    HANG,
  );

  it.each([
    ['met deep first', 'return { far: nest(600, inner), near: inner };'],
    ['met shallow first', 'return { near: inner, far: nest(600, inner) };'],
  ])(
    'refuses a result nested past the limit only through a shared object (%s)',
    async (_label, code) => {
      const result = await run(`const inner = nest(600, 1);\n${code}`);
      expect(result.error).toMatchObject(TOO_DEEP);
    },
    HANG,
  );

  it.each([
    ['a Date', 'const carrier = new Date(0);'],
    ['a boxed string', 'const carrier = new String("x");'],
  ])(
    'refuses a deep path after a cycle JSON.stringify never reaches (through %s, which it writes as text)',
    async (_label, setup) => {
      const result = await run(
        `${setup}\nconst root = {};\ncarrier.back = root;\nroot.a = carrier;\nroot.b = nest(20000, 1);\nreturn root;`,
      );
      expect(result.error).toMatchObject(TOO_DEEP);
    },
    HANG,
  );

  it(
    "refuses deep data in an array's hole, which JSON.stringify reads through the array's prototype",
    async () => {
      const result = await run('const holes = [,];\nObject.setPrototypeOf(holes, { 0: nest(20000, 1) });\nreturn holes;');
      expect(result.error).toMatchObject(TOO_DEEP);
    },
    HANG,
  );

  it(
    'checks an object of 10,000 hidden keys shared on 65,536 paths once, not once per path (then JSON.stringify refuses the BigInt)',
    async () => {
      const result = await run(
        'const leaf = {};\nfor (let i = 0; i < 10000; i++) Object.defineProperty(leaf, "k" + i, { value: i });\nlet shared = leaf;\nfor (let i = 0; i < 16; i++) shared = [shared, shared];\nreturn [1n, shared];',
      );
      expect(result.error).toMatchObject({ code: 'RESULT_NOT_SERIALIZABLE', message: expect.stringMatching(/BigInt/) });
    },
    HANG,
  );

  it(
    'reports a wide cyclic result as circular at once (each of 20,000 entries points back at it)',
    async () => {
      const result = await run(
        'const registry = {};\nfor (let i = 0; i < 20000; i++) registry["e" + i] = { owner: registry, i };\nreturn registry;',
      );
      expect(result.error).toMatchObject({ code: 'RESULT_NOT_SERIALIZABLE', message: expect.stringMatching(/circular/i) });
    },
    HANG,
  );

  it(
    'reports a cyclic result as circular, not as nested too deeply',
    async () => {
      const result = await run('const top = { name: "top" };\ntop.child = { parent: top };\nreturn top;');
      expect(result.error).toMatchObject({ code: 'RESULT_NOT_SERIALIZABLE' });
      expect(result.error?.message).not.toContain('nests too deeply');
      expect(result.error?.message).toMatch(/circular/i);
    },
    HANG,
  );
});

// Data past the tree walk's small budget goes to JSON.stringify with the engine's stack lowered: QuickJS's
// own stack check stops deep data there, and only then does the exact walk run (runtime/guest/src/json.ts,
// stringifyWithinDepth). Each case is large (10,000 entries beside its deep part) so it takes that path.
describe('the QuickJS depth limit on large data (the lowered stack)', () => {
  let sandbox: Sandbox;
  beforeAll(() => {
    sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine: 'quickjs' });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const LARGE = 'const wide = {};\nfor (let i = 0; i < 10000; i++) wide["k" + i] = { i };\n';
  const run = (code: string) =>
    sandbox.run(`import { echo } from '@capabilities/math';\n${NESTED}${LARGE}${code}`, {
      onCall: createFixtureHost().onCall,
      check: false,
    });
  const depthOf = (value: unknown): number => {
    let levels = 0;
    for (let at = value; typeof at === 'object' && at !== null; at = (at as { d?: unknown }).d) levels++;
    return levels;
  };

  it.each([1001, 1500, 20_000])(
    'refuses a large result nested %i levels deep as nested too deeply',
    async (levels) => {
      const result = await run(`return { wide, deep: nest(${levels}, 1) };`);
      expect(result.error).toMatchObject(TOO_DEEP);
    },
    HANG,
  );

  it.each([10, 500, 990])(
    'returns a large result nested %i levels deep, whole (at the limit the whole stack is tried again)',
    async (levels) => {
      const result = await run(`return { wide, deep: nest(${levels - 1}, 1) };`);
      expect(result.error).toBeUndefined();
      const returned = result.result as { wide: Record<string, { i: number }>; deep: unknown };
      expect(Object.keys(returned.wide)).toHaveLength(10_000);
      expect(returned.wide.k9999).toEqual({ i: 9999 });
      // The result's root is level 1: deep's chain is the other levels - 1 of it.
      expect(depthOf(returned.deep)).toBe(levels - 1);
    },
    HANG,
  );

  it(
    'refuses large arguments nested too deeply, as an error the program catches, and sends them within the limit',
    async () => {
      const result = await run(
        "let refused;\ntry { await echo({ value: { wide, deep: nest(1500, 1) } }); } catch (error) { refused = [error.code, String(error.message).includes('nest too deeply')]; }\n" +
          'const sent = await echo({ value: { wide, deep: nest(900, 1) } });\nreturn [refused, Object.keys(sent.wide).length];',
      );
      expect(result.error).toBeUndefined();
      expect(result.result).toEqual([['INVALID_ARGUMENTS', true], 10_000]);
    },
    HANG,
  );

  it(
    'sends large arguments from a program already deep in its own recursion (the lowered stack is used up there)',
    async () => {
      const result = await run(
        'const down = async (n) => (n === 0 ? echo({ value: { wide, deep: nest(50, 1) } }) : down(n - 1));\nconst sent = await down(300);\nreturn Object.keys(sent.wide).length;',
      );
      expect(result.error).toBeUndefined();
      expect(result.result).toBe(10_000);
    },
    HANG,
  );

  it(
    "fails a call whose large arguments' toJSON throws once with that error, as for small arguments (it is not run again)",
    async () => {
      const result = await run(
        "let ran = 0;\nconst value = (data) => ({ data, x: { toJSON() { if (++ran === 1) throw new Error('boom'); return 'fine'; } } });\n" +
          "const outcome = async (data) => { try { await echo({ value: value(data) }); return 'sent'; } catch (error) { return [error.code, String(error.message).includes('boom')]; } };\n" +
          'const large = await outcome(wide);\nconst ranLarge = ran;\nran = 0;\nreturn [large, ranLarge, await outcome(1), ran];',
      );
      expect(result.error).toBeUndefined();
      expect(result.result).toEqual([['INVALID_ARGUMENTS', true], 1, ['INVALID_ARGUMENTS', true], 1]);
    },
    HANG,
  );

  it(
    'reports what is not JSON in a large result (a BigInt), not a depth, when a deep chain of objects writes itself as text',
    async () => {
      const result = await run(
        "class Link { constructor(parent) { this.parent = parent; } toJSON() { return 'link'; } }\nlet chain;\nfor (let i = 0; i < 1200; i++) chain = new Link(chain);\nreturn { wide, chain, bad: 1n };",
      );
      expect(result.error).toMatchObject({ code: 'RESULT_NOT_SERIALIZABLE', message: expect.stringMatching(/BigInt/) });
      expect(result.error?.message).not.toContain('nests too deeply');
    },
    HANG,
  );

  it(
    'returns a large result whose toJSON recurses deeper than the lowered stack allows (it runs again with the whole stack)',
    async () => {
      const result = await run(
        'let ran = 0;\nconst depthOfRecursion = (n) => (n === 0 ? 0 : 1 + depthOfRecursion(n - 1));\nreturn { wide, report: { toJSON() { ran++; return { levels: depthOfRecursion(600), ran }; } } };',
      );
      expect(result.error).toBeUndefined();
      // Stopped by the lowered stack the first time, so the value returned is the second run's.
      expect((result.result as { report: unknown }).report).toEqual({ levels: 600, ran: 2 });
    },
    HANG,
  );
});
