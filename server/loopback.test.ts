import { describe, expect, it } from 'vitest';
import { isLoopbackAddress, isLoopbackHostname, resolveBindAddress } from './loopback.js';

describe('isLoopbackAddress', () => {
  it.each([
    '127.0.0.1',
    '127.0.0.2',
    '127.255.255.254',
    '127.1.2.3',
    '::1',
    '0:0:0:0:0:0:0:1',
    '0000:0000:0000:0000:0000:0000:0000:0001',
    '0::0:1',
    '::ffff:127.0.0.1',
    '::FFFF:127.9.9.9',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:0001',
    '::1%lo',
  ])('%s is loopback', (address) => {
    expect(isLoopbackAddress(address)).toBe(true);
  });

  it.each([
    '0.0.0.0',
    '::',
    '126.255.255.255',
    '128.0.0.1',
    '10.0.0.1',
    '192.168.1.10',
    '::2',
    '::ffff:10.0.0.1',
    '::ffff:0.0.0.0',
    // IPv4-compatible (deprecated) and NAT64 forms of 127.0.0.1 are not loopback to the kernel.
    '::127.0.0.1',
    '64:ff9b::127.0.0.1',
    'fe80::1%eth0',
    // Names and shorthand spellings are not address literals: they are resolved (bind) or URL-parsed (Host).
    'localhost',
    '127.1',
    '0x7f.1',
    '2130706433',
    '[::1]',
    '',
    '127.0.0.1.evil.example',
  ])('%s is not a loopback address literal', (address) => {
    expect(isLoopbackAddress(address)).toBe(false);
  });
});

describe('isLoopbackHostname (Host and Origin names, parsed as a browser does)', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'localhost.',
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '0x7f.1',
    '0x7f000001',
    '0177.0.0.1',
    '2130706433',
    '127.255.255.254',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:127.0.0.1]',
    '::1',
  ])('%s names this machine', (hostname) => {
    expect(isLoopbackHostname(hostname)).toBe(true);
  });

  it.each([
    'attacker.example',
    'localhost.attacker.example',
    'app.localhost',
    '127.0.0.1.nip.io',
    '0.0.0.0',
    '0',
    '[::]',
    '128.1',
    '0x80.1',
    '[::ffff:10.0.0.1]',
    '',
    'local host',
    '[::1',
  ])('%s does not', (hostname) => {
    expect(isLoopbackHostname(hostname)).toBe(false);
  });
});

describe('resolveBindAddress (what listen would bind)', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['127.3.2.1', '127.3.2.1'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '0:0:0:0:0:0:0:1'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1'],
  ])('%s binds %s, loopback', async (host, address) => {
    expect(await resolveBindAddress(host)).toEqual({ address, loopback: true });
  });

  it('resolves localhost and finds it loopback', async () => {
    const bind = await resolveBindAddress('localhost');
    expect(bind.loopback).toBe(true);
    expect(isLoopbackAddress(bind.address ?? '')).toBe(true);
  });

  it.each([
    ['0.0.0.0', '0.0.0.0'],
    ['::', '::'],
    ['128.0.0.1', '128.0.0.1'],
    ['0x80.1', '128.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['::ffff:10.0.0.1', '::ffff:10.0.0.1'],
  ])('%s binds %s, not loopback', async (host, address) => {
    expect(await resolveBindAddress(host)).toEqual({ address, loopback: false });
  });

  it('takes an empty host as every interface, not loopback', async () => {
    expect(await resolveBindAddress('')).toEqual({ address: undefined, loopback: false });
  });
});
