import { describe, expect, it } from 'vitest';
import { engineStatus, selectEngine, validateEngineChoice } from './engines.js';
import { failureReason, ISOLATED_VM_CANDIDATES } from './isolated-vm/load-isolated-vm.js';

describe('engines', () => {
  it('loads isolated-vm from the first candidate that loads, and QuickJS', async () => {
    const isolatedVm = await engineStatus('isolated-vm');
    expect(isolatedVm).toMatchObject({ engine: 'isolated-vm', available: true });
    expect(isolatedVm.attempts.at(-1)).toMatchObject({ ok: true });
    expect(ISOLATED_VM_CANDIDATES).toContain(isolatedVm.attempts.at(-1)?.candidate);
    expect(await engineStatus('quickjs')).toMatchObject({ engine: 'quickjs', available: true });
  });
  it('lets auto take isolated-vm where it loads, and says why', async () => {
    expect(await selectEngine('auto', 'worker')).toMatchObject({
      engine: 'isolated-vm',
      choice: 'auto',
      reason: expect.stringMatching(/^auto: isolated-vm .* loaded$/),
    });
    expect(await selectEngine('quickjs', 'worker')).toEqual({ engine: 'quickjs', choice: 'quickjs', reason: 'quickjs: asked for' });
  });
  it('refuses a choice that is no engine, naming the choices', () => {
    expect(() => validateEngineChoice('v8', 'sandbox.engine')).toThrow(
      'sandbox.engine must be one of "auto", "isolated-vm", "quickjs" (got "v8")',
    );
  });
  it('says why an isolated-vm copy did not load, in words a person can act on', () => {
    const missing = Object.assign(new Error("Cannot find module 'isolated-vm-7'"), { code: 'MODULE_NOT_FOUND' });
    expect(failureReason('isolated-vm-7', undefined, missing)).toBe('not installed');
    const noBinary = new Error('No native build was found for platform=linux arch=x64 runtime=node abi=115 uv=1 libc=glibc node=20.20.2');
    expect(failureReason('isolated-vm-7', '7.0.1', noBinary)).toBe(
      `no prebuilt binary for Node ${process.versions.node} (ABI ${process.versions.modules}) in isolated-vm-7 7.0.1`,
    );
    const notBuilt = Object.assign(new Error("Cannot find module './out/isolated_vm'"), { code: 'MODULE_NOT_FOUND' });
    expect(failureReason('isolated-vm', '5.0.4', notBuilt)).toMatch(/^installed \(5\.0\.4\) but not compiled/);
  });
});
