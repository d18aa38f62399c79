import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binaryAbi, failureReason, ISOLATED_VM_CANDIDATES, isolatedVmStatus } from './load-isolated-vm.js';

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

describe('the ABI of an isolated-vm binary, read before it is opened', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'ivm-abi-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const binaryWith = (name: string, bytes: Buffer): string => {
    const file = path.join(folder, name);
    writeFileSync(file, bytes);
    return file;
  };
  const filler = (size: number): Buffer => Buffer.alloc(size, 0x41);

  it('finds the symbol in the installed binary, without reading it whole', () => {
    const require = createRequire(import.meta.url);
    const binary = path.join(path.dirname(require.resolve('isolated-vm/package.json')), 'out', 'isolated_vm.node');
    expect(binaryAbi(binary)).toBe(process.versions.modules);
  });
  it('finds a symbol name and digits cut by a chunk boundary, and the first name with digits', () => {
    const symbol = Buffer.from('\0node_register_module_v137\0', 'latin1');
    for (let offset = 100; offset < 140; offset++) {
      const file = binaryWith(`cut-${offset}.node`, Buffer.concat([filler(offset), symbol, filler(300)]));
      expect(binaryAbi(file, 128), `symbol at ${offset}`).toBe('137');
    }
    const twice = Buffer.concat([filler(50), Buffer.from('node_register_module_vX node_register_module_v115', 'latin1'), filler(10)]);
    expect(binaryAbi(binaryWith('twice.node', twice), 128)).toBe('115');
    expect(binaryAbi(binaryWith('end.node', Buffer.concat([filler(200), Buffer.from('node_register_module_v93')])), 128)).toBe('93');
  });
  it('says undefined for a binary without the symbol, and throws for one it cannot read', () => {
    expect(binaryAbi(binaryWith('none.node', filler(1000)), 128)).toBeUndefined();
    expect(() => binaryAbi(path.join(folder, 'missing.node'))).toThrow(/ENOENT/);
  });
});
