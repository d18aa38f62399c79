import { describe, expect, it } from 'vitest';
import { failureReason, ISOLATED_VM_CANDIDATES, isolatedVmStatus } from './load-isolated-vm.js';

describe('loading isolated-vm', () => {
  it('loads isolated-vm from the first candidate that loads', () => {
    const status = isolatedVmStatus();
    expect(status).toMatchObject({ engine: 'isolated-vm', available: true });
    expect(status.attempts.at(-1)).toMatchObject({ ok: true });
    expect(ISOLATED_VM_CANDIDATES).toContain(status.attempts.at(-1)?.candidate);
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
