import { describe, expect, it } from 'vitest';
import type { EngineDefinition, EngineName, EngineStatus } from './engine.js';
import { chooseAuto, ENGINE_CHOICES, ENGINE_NAMES, ENGINES, engineStatus, selectEngine, validateEngineChoice } from './engines.js';

/** An engine that is never loaded: only its description is read. */
function fakeEngine(name: string, status: Partial<EngineStatus>, problem?: string): EngineDefinition {
  return {
    name: name as EngineName,
    autoOrder: 0,
    status: () => ({ engine: name as EngineName, available: true, detail: `${name} 1.0 loaded`, attempts: [], ...status }),
    placementProblem: (placement) =>
      problem === undefined || placement === 'worker'
        ? undefined
        : { code: 'NEEDS_FLAG', message: 'start with the flag', autoReason: problem },
    load: () => Promise.reject(new Error('not loaded in this test')),
  };
}

describe('engines', () => {
  it('lists every engine once, in auto order, and the choices are auto and their names', () => {
    expect(new Set(ENGINE_NAMES).size).toBe(ENGINES.length);
    expect(ENGINE_NAMES).toEqual(ENGINES.map((engine) => engine.name));
    expect(ENGINES.map((engine) => engine.autoOrder)).toEqual([...ENGINES.map((engine) => engine.autoOrder)].sort((a, b) => a - b));
    expect(ENGINE_CHOICES).toEqual(['auto', ...ENGINE_NAMES]);
    expect(ENGINE_NAMES).toEqual(expect.arrayContaining(['isolated-vm', 'quickjs']));
  });
  it('loads every registered engine on this machine', async () => {
    for (const name of ENGINE_NAMES) expect(await engineStatus(name)).toMatchObject({ engine: name, available: true });
  });
  it('lets auto take isolated-vm where it loads, and says why', async () => {
    expect(await selectEngine('auto', 'worker')).toMatchObject({
      engine: 'isolated-vm',
      choice: 'auto',
      reason: expect.stringMatching(/^auto: isolated-vm .* loaded$/),
    });
    expect(await selectEngine('quickjs', 'worker')).toEqual({ engine: 'quickjs', choice: 'quickjs', reason: 'quickjs: asked for' });
  });
  it('passes over an engine that does not load, or cannot run in the placement, saying why', async () => {
    const fast = fakeEngine('fast', {}, 'this process lacks a flag');
    const broken = fakeEngine('broken', { available: false, detail: 'no binary for this Node' });
    const portable = fakeEngine('portable', {});
    expect(await chooseAuto([fast, portable], 'worker')).toEqual({ engine: 'fast', choice: 'auto', reason: 'auto: fast 1.0 loaded' });
    expect(await chooseAuto([fast, portable], 'in-process')).toEqual({
      engine: 'portable',
      choice: 'auto',
      reason: 'auto: fast 1.0 loaded, but this process lacks a flag',
    });
    expect(await chooseAuto([broken, fast, portable], 'in-process')).toEqual({
      engine: 'portable',
      choice: 'auto',
      reason: 'auto: broken is not available (no binary for this Node); fast 1.0 loaded, but this process lacks a flag',
    });
    // None can run: the last is taken, and its first run says why.
    expect(await chooseAuto([portable, broken], 'worker')).toMatchObject({ engine: 'portable' });
    expect(await chooseAuto([broken], 'worker')).toEqual({
      engine: 'broken',
      choice: 'auto',
      reason: 'auto: broken: no binary for this Node',
    });
  });
  it('refuses a choice that is no engine, naming the choices', () => {
    expect(() => validateEngineChoice('v8', 'sandbox.engine')).toThrow(
      'sandbox.engine must be one of "auto", "isolated-vm", "quickjs" (got "v8")',
    );
  });
});
