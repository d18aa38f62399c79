import { describe, expect, it } from 'vitest';
import { redactSecrets, secretsOfServer, serverSecrets } from './server-secrets.js';

describe('secretsOfServer', () => {
  it('takes every argument of a stdio server (and the value of --flag=value), but not bare flags, and every env value', () => {
    const secrets = secretsOfServer({
      command: 'npx',
      args: ['-y', '--stdio', '@acme/mcp-server', '--api-key=sk-abc123456789', '--token', 'tok-987654321'],
      env: { ACME_TOKEN: 'env-token-value', REGION: 'eu' },
    });
    expect(secrets).toEqual(expect.arrayContaining(['@acme/mcp-server', '--api-key=sk-abc123456789', 'sk-abc123456789', 'tok-987654321', 'env-token-value']));
    expect(secrets).not.toContain('-y');
    expect(secrets).not.toContain('--stdio');
    expect(secrets).not.toContain('--token');
    expect(secrets).not.toContain('npx');
    // Two characters are too short to cut without mangling ordinary text.
    expect(secrets).not.toContain('eu');
  });

  it('takes header values (and the credential after the scheme), the URL user, password and query values', () => {
    const secrets = secretsOfServer({
      url: 'https://bob:pa%24%24word@mcp.example.com/mcp?api_key=q-secret-1&team=core',
      headers: { Authorization: 'Bearer bearer-token-1', 'X-Api-Key': 'header-key-1' },
    });
    expect(secrets).toEqual(
      expect.arrayContaining(['Bearer bearer-token-1', 'bearer-token-1', 'header-key-1', 'bob', 'pa%24%24word', 'pa$$word', 'q-secret-1', 'core', 'api_key=q-secret-1&team=core']),
    );
    expect(secrets).not.toContain('mcp.example.com');
  });

  it('also lists each value as it looks JSON- and URL-encoded', () => {
    expect(secretsOfServer({ command: 'node', env: { KEY: 'a"b/c d+e' } })).toEqual(expect.arrayContaining(['a"b/c d+e', 'a\\"b/c d+e', 'a%22b%2Fc%20d%2Be']));
  });

  it('leaves out configuration words that are no secret', () => {
    expect(secretsOfServer({ command: 'node', env: { DEBUG: 'true', VERBOSE: 'off', COLOR: 'none' } })).toEqual([]);
  });
});

describe('serverSecrets', () => {
  it('joins the secrets of every server with the model key of the config and OPENAI_API_KEY', () => {
    const secrets = serverSecrets(
      { mcpServers: { a: { command: 'node', env: { A: 'a-secret-1' } }, b: { url: 'https://x.example/mcp', headers: { H: 'b-secret-1' } } }, model: { apiKey: 'sk-config-key-1' } },
      { OPENAI_API_KEY: 'sk-env-key-1', HOME: '/root' },
    );
    expect(secrets).toEqual(expect.arrayContaining(['a-secret-1', 'b-secret-1', 'sk-config-key-1', 'sk-env-key-1']));
    expect(secrets).not.toContain('/root');
  });
});

describe('redactSecrets', () => {
  it('cuts long values wherever they appear, even inside other words', () => {
    expect(redactSecrets('x=sk-abc123456789;y=presk-abc123456789post', ['sk-abc123456789'])).toBe('x=[REDACTED];y=pre[REDACTED]post');
  });

  it('cuts short values (3 to 7 characters) only where they stand alone', () => {
    expect(redactSecrets('pin=7Qx9, again "7Qx9" and 7Qx9s and a7Qx9', ['7Qx9'])).toBe('pin=[REDACTED], again "[REDACTED]" and 7Qx9s and a7Qx9');
    expect(redactSecrets('the user bob logged in; bobby did not', ['bob'])).toBe('the user [REDACTED] logged in; bobby did not');
  });

  it('never cuts values under 3 characters, and cuts the longest secret first', () => {
    expect(redactSecrets('region eu, key abcd1234-long', ['eu', 'abcd1234', 'abcd1234-long'])).toBe('region eu, key [REDACTED]');
  });

  it('treats regular-expression characters in a secret literally', () => {
    expect(redactSecrets('k=a.b*c+(d)?[e]{f}|g^$\\h/i and aXb', ['a.b*c+(d)?[e]{f}|g^$\\h/i', 'a.b'])).toBe('k=[REDACTED] and aXb');
  });

  it('returns the text untouched when there are no secrets', () => {
    expect(redactSecrets('nothing here', [])).toBe('nothing here');
  });
});
