import { describe, expect, it } from 'vitest';
import { createCryptoTool } from './crypto-tool.js';
import { callTool } from './test-support/call-tool.js';

const crypto = createCryptoTool();

describe('std crypto', () => {
  it.each([
    ['sha256', 'hex', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    ['sha256', 'base64', 'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='],
    ['sha1', 'hex', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
    ['md5', 'hex', '900150983cd24fb0d6963f7d28e17f72'],
    [
      'sha512',
      'hex',
      'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
    ],
  ])('hashes "abc" with %s as %s (FIPS 180 / RFC 1321 vectors)', async (algorithm, encoding, digest) => {
    await expect(callTool(crypto, 'hash', { data: 'abc', algorithm, encoding })).resolves.toBe(digest);
  });

  it('defaults to sha256 hex and decodes base64 input', async () => {
    await expect(callTool(crypto, 'hash', { data: '' })).resolves.toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    await expect(callTool(crypto, 'hash', { data: 'YWJj', inputEncoding: 'base64', algorithm: 'md5' })).resolves.toBe(
      '900150983cd24fb0d6963f7d28e17f72',
    );
  });

  it('computes HMAC-SHA256 (RFC 4231 test case 2)', async () => {
    await expect(callTool(crypto, 'hmac', { key: 'Jefe', data: 'what do ya want for nothing?' })).resolves.toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('makes random UUIDs and bytes', async () => {
    const [first, second] = [await callTool(crypto, 'randomUUID'), await callTool(crypto, 'randomUUID')];
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first).not.toBe(second);
    await expect(callTool(crypto, 'randomBytes', { length: 16 })).resolves.toMatch(/^[0-9a-f]{32}$/);
    expect(Buffer.from((await callTool(crypto, 'randomBytes', { length: 9, encoding: 'base64' })) as string, 'base64')).toHaveLength(9);
    await expect(callTool(crypto, 'randomBytes', { length: 0 })).rejects.toThrow();
  });

  it('bounds what it hashes', async () => {
    const small = createCryptoTool({ maxInputChars: 16 });
    await expect(callTool(small, 'hash', { data: 'x'.repeat(16) })).resolves.toMatch(/^[0-9a-f]{64}$/);
    await expect(callTool(small, 'hash', { data: 'x'.repeat(17) })).rejects.toThrow(/16/);
    await expect(callTool(small, 'hmac', { key: 'k', data: 'x'.repeat(17) })).rejects.toThrow(/16/);
    await expect(callTool(crypto, 'hmac', { key: 'k'.repeat(64 * 1024 + 1), data: 'x' })).rejects.toThrow(/65536/);
  });
});
