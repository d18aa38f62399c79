import { describe, expect, it } from 'vitest';
import { ToolCallError } from '../core/index.js';
import { REDACTED, createRedactor, isSecretKey, redact, redactCredentialShapes, redactText, redactToolCallError, redactUrlPasswords } from './redact.js';

describe('redact', () => {
  it.each([
    ['token', true],
    ['accessToken', true],
    ['refresh_token', true],
    ['Authorization', true],
    ['PROXY-AUTHORIZATION', true],
    ['password', true],
    ['Password', true],
    ['api_key', true],
    ['apiKey', true],
    ['api-key', true],
    ['X-API-KEY', true],
    ['apikey', true],
    ['client_secret', true],
    ['Set-Cookie', true],
    ['credentials', true],
    ['private_key', true],
    ['PrivateKey', true],
    ['auth', true],
    ['author', false],
    ['query', false],
    ['keyboard', false],
    ['path', false],
  ])('treats key %s as secret: %s', (key, secret) => {
    expect(isSecretKey(key)).toBe(secret);
  });

  it('redacts at any depth, inside arrays, without touching the input', () => {
    const input = {
      query: 'weather',
      headers: { Authorization: 'Bearer abc', Accept: 'json' },
      servers: [{ name: 'gh', env: { GITHUB_TOKEN: 'ghp_1' } }, { name: 'x', apiKey: 'k' }],
      nested: { deeper: { password: { value: 'p' } } },
    };
    expect(redact(input)).toEqual({
      query: 'weather',
      headers: { Authorization: REDACTED, Accept: 'json' },
      servers: [{ name: 'gh', env: { GITHUB_TOKEN: REDACTED } }, { name: 'x', apiKey: REDACTED }],
      nested: { deeper: { password: REDACTED } },
    });
    expect(input.headers.Authorization).toBe('Bearer abc');
  });

  it('keeps counts and flags under secret-looking keys', () => {
    expect(redact({ maxTokens: 100, requiresPassword: true, token: 'abc' })).toEqual({ maxTokens: 100, requiresPassword: true, token: REDACTED });
    // Counts nested under a secret-looking key stay (a planner's usage); any text under it goes.
    expect(redact({ usage: { tokens: { input: 12, output: 30, cached: null } } })).toEqual({ usage: { tokens: { input: 12, output: 30, cached: null } } });
    expect(redact({ tokens: [1, 2, 3], credentials: { user: 'u', pin: 1234 }, token: { value: 'abc' }, secret: {} })).toEqual({ tokens: [1, 2, 3], credentials: REDACTED, token: REDACTED, secret: REDACTED });
  });

  it('survives cycles and keeps shared (non-cyclic) references', () => {
    const shared = { value: 1 };
    const node: Record<string, unknown> = { name: 'a', secret: 's', left: shared, right: shared };
    node.self = node;
    const list: unknown[] = [1];
    list.push(list);
    expect(redact(node)).toEqual({ name: 'a', secret: REDACTED, left: { value: 1 }, right: { value: 1 }, self: '[Circular]' });
    expect(redact(list)).toEqual([1, '[Circular]']);
  });

  it('takes extra keys and known secret values', () => {
    expect(redact({ sessionId: 'x', note: 'key is sk-live-1234 ok' }, { keys: ['session_id'], secrets: ['sk-live-1234'] })).toEqual({
      sessionId: REDACTED,
      note: 'key is [REDACTED] ok',
    });
  });

  it('leaves primitives and non-plain objects alone', () => {
    const date = new Date(0);
    expect(redact('text')).toBe('text');
    expect(redact(null)).toBe(null);
    expect(redact({ when: date }).when).toBe(date);
  });
});

describe('redactText', () => {
  it('replaces every occurrence, longest secret first, and ignores very short values', () => {
    expect(redactText('a=abcd1234 b=abcd1234-long c=abcd1234', ['abcd1234', 'abcd1234-long', 'ab'])).toBe('a=[REDACTED] b=[REDACTED] c=[REDACTED]');
    expect(redactText('nothing here', [])).toBe('nothing here');
  });

  it('cuts a short secret where it stands alone, not inside other words', () => {
    expect(redactText('key=k3y9 in monk3y9s', ['k3y9'])).toBe('key=[REDACTED] in monk3y9s');
  });
});

describe('redactCredentialShapes', () => {
  it.each([
    ['key sk-proj-abcdefghijklmnopqrstuv used', 'key [REDACTED] used'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123', 'token [REDACTED]'],
    ['Authorization: Bearer abcdefghijklmnopqrstu', 'Authorization: Bearer [REDACTED]'],
    ['AKIAABCDEFGHIJKLMNOP', '[REDACTED]'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', '[REDACTED]'],
    ['a skeleton key and a short sk-1', 'a skeleton key and a short sk-1'],
  ])('%s', (input, expected) => {
    expect(redactCredentialShapes(input)).toBe(expected);
  });

  it('applies inside redact(), with known secrets and URL passwords', () => {
    expect(redact({ log: 'https://u:pw12@h/ sk-abcdefghijklmnopqrstuv env-value-1' }, { secrets: ['env-value-1'] })).toEqual({
      log: 'https://u:[REDACTED]@h/ [REDACTED] [REDACTED]',
    });
  });
});

describe('redactToolCallError', () => {
  const target = { capability: 'mcp-gh', function: 'search' };
  const redactValue = createRedactor({ secrets: ['ghs-secret-value'] });

  it('cuts secrets out of the message, the details and the cause, keeping code and target', () => {
    const spawnError = Object.assign(new Error('spawn npx -y server --key=ghs-secret-value ENOENT'), { spawnargs: ['--key=ghs-secret-value'] });
    const error = new ToolCallError('SERVER_UNAVAILABLE', 'server said: bad key ghs-secret-value', target, {
      details: { server: 'gh', data: { echo: ['ghs-secret-value'] }, apiKey: 'x' },
      cause: spawnError,
    });
    const clean = redactToolCallError(error, redactValue);
    expect(clean).toBeInstanceOf(ToolCallError);
    expect(clean).toMatchObject({ code: 'SERVER_UNAVAILABLE', capability: 'mcp-gh', function: 'search', message: 'server said: bad key [REDACTED]' });
    expect(clean.details).toEqual({ server: 'gh', data: { echo: ['[REDACTED]'] }, apiKey: '[REDACTED]' });
    expect(clean.cause).toBeInstanceOf(Error);
    expect((clean.cause as Error).message).toBe('spawn npx -y server --key=[REDACTED] ENOENT');
    expect(JSON.stringify(clean.cause)).not.toContain('ghs-secret-value');
  });

  it('replaces a cause whose own fields hold a secret, even when its message does not', () => {
    const rpcError = Object.assign(new Error('upstream failed'), { data: { token: 'ghs-secret-value' } });
    const clean = redactToolCallError(new ToolCallError('TOOL_FAILED', 'failed', target, { cause: rpcError }), redactValue);
    expect(clean.cause).not.toBe(rpcError);
    expect((clean.cause as Error).message).toBe('upstream failed');
  });

  it('returns the error itself when nothing needs cutting', () => {
    const cause = new Error('plain');
    const error = new ToolCallError('TOOL_FAILED', 'plain failure', target, { details: { server: 'gh' }, cause });
    expect(redactToolCallError(error, redactValue)).toBe(error);
  });
});

describe('redact: hostile keys', () => {
  it('keeps a "__proto__" key as data instead of turning it into the copy\'s prototype', () => {
    const args = JSON.parse('{"__proto__": {"token": "t-1", "note": "n"}, "a": 1}') as Record<string, unknown>;
    const copy = redact(args);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"token":"[REDACTED]","note":"n"},"a":1}');
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});

describe('redactUrlPasswords', () => {
  it.each([
    ['https://bob:hunter2@example.com/x', 'https://bob:[REDACTED]@example.com/x'],
    ['fetch postgres://app:s3cr3t@db:5432/main now', 'fetch postgres://app:[REDACTED]@db:5432/main now'],
    ['https://example.com/a@b', 'https://example.com/a@b'],
    ['mail bob@example.com', 'mail bob@example.com'],
    ['https://token@example.com', 'https://token@example.com'],
  ])('%s', (input, expected) => {
    expect(redactUrlPasswords(input)).toBe(expected);
  });

  it('applies inside redact(), at any depth', () => {
    expect(redact({ request: { url: 'https://u:p4ss@h/' } })).toEqual({ request: { url: 'https://u:[REDACTED]@h/' } });
  });
});
