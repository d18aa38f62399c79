import { describe, expect, it } from 'vitest';
import { ToolCallError } from './errors.js';
import { REDACTED, createRedactor, isSecretKey, redact, redactText, redactToolCallError, redactionMarker } from './redact.js';
import type { Secret } from './secrets.js';

const strong = (value: string, label = 'env API_KEY'): Secret => ({ value, label, strength: 'strong' });
const weak = (value: string, label = 'header X-Org'): Secret => ({ value, label, strength: 'weak' });

describe('redact: keys', () => {
  it.each([
    ['token', true],
    ['accessToken', true],
    ['refresh_token', true],
    ['Authorization', true],
    ['PROXY-AUTHORIZATION', true],
    ['password', true],
    ['api_key', true],
    ['apiKey', true],
    ['X-API-KEY', true],
    ['client_secret', true],
    ['Set-Cookie', true],
    ['credentials', true],
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
      servers: [
        { name: 'gh', env: { GITHUB_TOKEN: 'ghp_1' } },
        { name: 'x', apiKey: 'k' },
      ],
      nested: { deeper: { password: { value: 'p' } } },
    };
    expect(redact(input)).toEqual({
      query: 'weather',
      headers: { Authorization: REDACTED, Accept: 'json' },
      servers: [
        { name: 'gh', env: { GITHUB_TOKEN: REDACTED } },
        { name: 'x', apiKey: REDACTED },
      ],
      nested: { deeper: { password: REDACTED } },
    });
    expect(input.headers.Authorization).toBe('Bearer abc');
  });

  it('keeps counts and flags under secret-looking keys', () => {
    expect(redact({ maxTokens: 100, requiresPassword: true, token: 'abc' })).toEqual({
      maxTokens: 100,
      requiresPassword: true,
      token: REDACTED,
    });
    expect(redact({ usage: { tokens: { input: 12, output: 30, cached: null } } })).toEqual({
      usage: { tokens: { input: 12, output: 30, cached: null } },
    });
    expect(redact({ tokens: [1, 2, 3], credentials: { user: 'u', pin: 1234 }, token: { value: 'abc' }, secret: {} })).toEqual({
      tokens: [1, 2, 3],
      credentials: REDACTED,
      token: REDACTED,
      secret: REDACTED,
    });
  });

  it('survives cycles and keeps shared (non-cyclic) references', () => {
    const shared = { value: 1 };
    const node: Record<string, unknown> = { name: 'a', secret: 's', left: shared, right: shared };
    node.self = node;
    expect(redact(node)).toEqual({ name: 'a', secret: REDACTED, left: { value: 1 }, right: { value: 1 }, self: '[Circular]' });
  });

  it('takes extra keys and known secret values, saying why a value was cut', () => {
    expect(redact({ sessionId: 'x', note: 'key is sk-live-1234 ok' }, { keys: ['session_id'], secrets: [strong('sk-live-1234')] })).toEqual(
      {
        sessionId: REDACTED,
        note: 'key is [REDACTED: env API_KEY] ok',
      },
    );
  });

  it('leaves primitives and non-plain objects alone', () => {
    const date = new Date(0);
    expect(redact('text')).toBe('text');
    expect(redact(null)).toBe(null);
    expect(redact({ when: date }).when).toBe(date);
  });

  it('keeps a "__proto__" key as data instead of turning it into the copy\'s prototype', () => {
    const args = JSON.parse('{"__proto__": {"token": "t-1", "note": "n"}, "a": 1}') as Record<string, unknown>;
    const copy = redact(args);
    expect(JSON.stringify(copy)).toBe('{"__proto__":{"token":"[REDACTED]","note":"n"},"a":1}');
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});

describe('redactText: known values', () => {
  it('replaces every occurrence, longest secret first, and ignores values under 4 characters', () => {
    expect(
      redactText('a=abcd1234 b=abcd1234-long c=abcd1234', [strong('abcd1234', 'env A'), strong('abcd1234-long', 'env B'), strong('ab')]),
    ).toBe('a=[REDACTED: env A] b=[REDACTED: env B] c=[REDACTED: env A]');
    expect(redactText('nothing here', [])).toBe('nothing here');
  });

  it('cuts a short secret where it stands alone, not inside other words', () => {
    expect(redactText('key=k3y9 in monk3y9s', [strong('k3y9', 'env PIN')])).toBe('key=[REDACTED: env PIN] in monk3y9s');
  });

  it('treats regular-expression characters in a secret literally', () => {
    expect(redactText('x a.b*c+d? y aXbbc', [strong('a.b*c+d?')])).toBe('x [REDACTED: env API_KEY] y aXbbc');
  });

  it('cuts a value echoed JSON-escaped or URL-encoded', () => {
    const secret = strong('p"w/&=q:12345');
    expect(redactText('json "p\\"w/&=q:12345" url p%22w%2F%26%3Dq%3A12345', [secret])).toBe(
      'json "[REDACTED: env API_KEY]" url [REDACTED: env API_KEY]',
    );
  });

  it('names a bare value "configured secret"', () => {
    expect(redactText('the key key-1234-abcd was refused', ['key-1234-abcd'])).toBe('the key [REDACTED: configured secret] was refused');
  });
});

describe('redactText: pieces of secrets', () => {
  const key = strong('zq7W-k2P9-mX4v-R8tL', 'header X-Api-Key');

  it('cuts any piece of 8 characters or more of a strong secret, wherever it is', () => {
    expect(redactText('echo: k2P9-mX4v!', [key])).toBe('echo: [REDACTED: part of header X-Api-Key]!');
    expect(redactText('…aaaaaaaazq7W-k2P9-mX4v-R8', [key])).toBe('…aaaaaaaa[REDACTED: part of header X-Api-Key]');
    // Each alignment of the piece is found, whatever the text around it.
    for (let start = 0; start + 8 <= key.value.length; start += 1) {
      for (const before of ['', 'a', 'ab', 'abc', 'abcd', 'abcde']) {
        const piece = key.value.slice(start, start + 8);
        expect(redactText(`${before}${piece}`, [key]), `${before}${piece}`).not.toContain(piece);
      }
    }
  });

  it('keeps a piece that is an everyday word: it tells nothing of the key', () => {
    expect(
      redactText('The stations token is stations-env-secret-77f3a1.', [strong('stations-env-secret-77f3a1', 'env STATIONS_TOKEN')]),
    ).toBe('The stations token is [REDACTED: env STATIONS_TOKEN].');
    expect(redactText('The stations-env-secr', [strong('stations-env-secret-77f3a1', 'env STATIONS_TOKEN')])).toBe(
      'The [REDACTED: part of env STATIONS_TOKEN]',
    );
  });

  it('keeps pieces of 7 characters or fewer inside a text', () => {
    expect(redactText('x k2P9-mX y', [key])).toBe('x k2P9-mX y');
  });

  it('cuts a shorter piece (4 to 7 characters) where a text starts or ends: where something cut it', () => {
    expect(redactText('the key was zq7W-k2', [key])).toBe('the key was [REDACTED: part of header X-Api-Key]');
    expect(redactText('R8tL was the end', [key])).toBe('[REDACTED: part of header X-Api-Key] was the end');
    expect(redactText('the key was zq7', [key])).toBe('the key was zq7');
    // A `…` says something was cut there: a message quoting a cut value.
    expect(redactText('got "aaaa zq7W-k2…" (expected a number)', [key])).toBe(
      'got "aaaa [REDACTED: part of header X-Api-Key]…" (expected a number)',
    );
    expect(redactText('log: …8tL and more', [key])).toBe('log: …8tL and more');
    expect(redactText('log: …-R8tL and more', [key])).toBe('log: …[REDACTED: part of header X-Api-Key] and more');
  });

  it('cuts a weak secret only whole: its pieces are everyday words', () => {
    const org = weak('my-organization-name');
    expect(redactText('org my-organization-name; the organization said', [org])).toBe(
      'org [REDACTED: header X-Org]; the organization said',
    );
  });

  it('cuts a secret split between two texts when each half is long enough', () => {
    const redactor = createRedactor({ secrets: [key] });
    expect(redactor(['zq7W-k2P9-', 'mX4v-R8tL'])).toEqual(['[REDACTED: part of header X-Api-Key]', '[REDACTED: part of header X-Api-Key]']);
  });
});

describe('redactText: shapes', () => {
  it.each([
    ['key sk-proj-abcdefghijklmnopqrstuv used', 'key [REDACTED: API key (sk-…)] used'],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123', 'token [REDACTED: GitHub token]'],
    ['Authorization: Bearer abcdefghijklmnopqrstu', 'Authorization: Bearer [REDACTED: bearer token]'],
    ['id AKIAABCDEFGHIJKLMNOP', 'id [REDACTED: AWS access key id]'],
    ['slack xoxb-1234567890-abcdef', 'slack [REDACTED: Slack token]'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt [REDACTED: JWT]'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----', '[REDACTED: private key]'],
    ['a skeleton key and a short sk-1', 'a skeleton key and a short sk-1'],
    ['https://bob:hunter2@example.com/x', 'https://bob:[REDACTED: URL password]@example.com/x'],
    ['fetch postgres://app:s3cr3t@db:5432/main now', 'fetch postgres://app:[REDACTED: URL password]@db:5432/main now'],
    ['https://example.com/a@b', 'https://example.com/a@b'],
    ['mail bob@example.com', 'mail bob@example.com'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('is stable: redacting a redacted text changes nothing', () => {
    const once = redactText('https://u:pw12@h/ sk-abcdefghijklmnopqrstuv env-value-1234', [strong('env-value-1234')]);
    expect(once).toBe('https://u:[REDACTED: URL password]@h/ [REDACTED: API key (sk-…)] [REDACTED: env API_KEY]');
    expect(redactText(once, [strong('env-value-1234')])).toBe(once);
  });
});

describe('createRedactor: excerpt (redact before cutting)', () => {
  const key = strong('Kx9-2mQp-77Zr-Lw0e', 'header X-Api-Key');
  const redactor = createRedactor({ secrets: [key] });

  it('never leaves a piece of a secret at the cut, however the text is padded', () => {
    for (let padding = 0; padding < 40; padding += 1) {
      const excerpt = redactor.excerpt(`${'a'.repeat(padding)}${key.value} and more text after it`, 30);
      for (let length = MIN_SHOWN; length <= key.value.length; length += 1)
        expect(excerpt, excerpt).not.toContain(key.value.slice(0, length));
    }
  });

  it('keeps a marker whole at the cut', () => {
    const excerpt = redactor.excerpt(`${'a'.repeat(20)}${key.value} tail tail tail`, 24);
    expect(excerpt).toBe(`${'a'.repeat(20)}${redactionMarker('header X-Api-Key')}…`);
  });

  it('returns short texts whole', () => {
    expect(redactor.excerpt('short', 30)).toBe('short');
  });
});
const MIN_SHOWN = 4;

describe('redactToolCallError', () => {
  const target = { capability: 'mcp-gh', function: 'search' };
  const redactValue = createRedactor({ secrets: [strong('ghs-secret-value', 'env GH_TOKEN')] });

  it('cuts secrets out of the message, the details and the cause, keeping code and target', () => {
    const spawnError = Object.assign(new Error('spawn npx -y server --key=ghs-secret-value ENOENT'), {
      spawnargs: ['--key=ghs-secret-value'],
    });
    const error = new ToolCallError('SERVER_UNAVAILABLE', 'server said: bad key ghs-secret-value', target, {
      details: { server: 'gh', data: { echo: ['ghs-secret-value'] }, apiKey: 'x' },
      cause: spawnError,
    });
    const clean = redactToolCallError(error, redactValue);
    expect(clean).toBeInstanceOf(ToolCallError);
    expect(clean).toMatchObject({
      code: 'SERVER_UNAVAILABLE',
      capability: 'mcp-gh',
      function: 'search',
      message: 'server said: bad key [REDACTED: env GH_TOKEN]',
    });
    expect(clean.details).toEqual({ server: 'gh', data: { echo: ['[REDACTED: env GH_TOKEN]'] }, apiKey: '[REDACTED]' });
    expect((clean.cause as Error).message).toBe('spawn npx -y server --key=[REDACTED: env GH_TOKEN] ENOENT');
    expect(JSON.stringify(clean.cause)).not.toContain('ghs-secret-value');
    expect(redactValue.error(error).message).toBe(clean.message);
  });

  it('replaces a cause whose own fields hold a secret, even when its message does not', () => {
    const rpcError = Object.assign(new Error('upstream failed'), { data: { token: 'ghs-secret-value' } });
    const clean = redactToolCallError(new ToolCallError('TOOL_FAILED', 'failed', target, { cause: rpcError }), redactValue);
    expect(clean.cause).not.toBe(rpcError);
    expect((clean.cause as Error).message).toBe('upstream failed');
  });

  it('returns the error itself when nothing needs cutting', () => {
    const error = new ToolCallError('TOOL_FAILED', 'plain failure', target, { details: { server: 'gh' }, cause: new Error('plain') });
    expect(redactToolCallError(error, redactValue)).toBe(error);
  });
});
