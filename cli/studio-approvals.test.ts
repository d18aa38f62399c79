import { afterEach, describe, expect, it } from 'vitest';
import { parseStudioAddress, STUDIO_ENV, studioAddressFrom } from './studio-approvals.js';
import { UsageError } from './usage-error.js';

const saved = process.env[STUDIO_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[STUDIO_ENV];
  else process.env[STUDIO_ENV] = saved;
});

describe('the studio address of --studio', () => {
  it('reads the address the studio prints: its origin and the token of its fragment', () => {
    expect(parseStudioAddress('http://127.0.0.1:4500/#token=abc_-1')).toEqual({ origin: 'http://127.0.0.1:4500', token: 'abc_-1' });
    expect(parseStudioAddress('http://[::1]:4500/#token=t').origin).toBe('http://[::1]:4500');
  });

  it('takes loopback http addresses with a token only, saying what is wrong', () => {
    expect(() => parseStudioAddress('http://10.0.0.5:4500/#token=t')).toThrow(/"10\.0\.0\.5" is not a loopback address/);
    expect(() => parseStudioAddress('https://127.0.0.1:4500/#token=t')).toThrow(/starts with http:\/\//);
    expect(() => parseStudioAddress('http://127.0.0.1:4500/')).toThrow(/has no token/);
    expect(() => parseStudioAddress('4500')).toThrow(UsageError);
  });

  it('comes from --studio, else from the environment unless --approve decides; both options are refused', () => {
    process.env[STUDIO_ENV] = 'http://127.0.0.1:1/#token=from-env';
    expect(studioAddressFrom(undefined, undefined)?.token).toBe('from-env');
    expect(studioAddressFrom(undefined, 'all')).toBeUndefined();
    expect(studioAddressFrom('http://localhost:2/#token=given', undefined)).toEqual({ origin: 'http://localhost:2', token: 'given' });
    expect(() => studioAddressFrom('http://localhost:2/#token=given', 'none')).toThrow(/--studio and --approve/);
    process.env[STUDIO_ENV] = 'http://example.com/#token=x';
    expect(() => studioAddressFrom(undefined, undefined)).toThrow(new RegExp(`^\\$${STUDIO_ENV}: the studio serves on loopback only`));
  });
});
