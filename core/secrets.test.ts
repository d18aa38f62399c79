import { describe, expect, it } from 'vitest';
import { looksLikeCredential, namesSecret, secretsOfArgs, secretsOfEnv, secretsOfHeaders, secretsOfUrl } from './secrets.js';

const values = (secrets: { value: string }[]): string[] => secrets.map((secret) => secret.value);

describe('what is a secret', () => {
  it.each([
    ['GITHUB_TOKEN', true],
    ['--api-key', true],
    ['--token', true],
    ['X-Api-Key', true],
    ['apiKey', true],
    ['access_token', true],
    ['DB_PASSWORD', true],
    ['LEAKY_PIN', true],
    ['SENTRY_DSN', true],
    ['--client-secret', true],
    ['LOG_LEVEL', false],
    ['--state-dir', false],
    ['HOME', false],
    ['keyboard', false],
    ['--stdio', false],
  ])('the name %s says secret: %s', (name, secret) => {
    expect(namesSecret(name)).toBe(secret);
  });

  it.each([
    ['sk-proj-abcdefghijklmnopqrstuv', true],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123', true],
    ['xoxb-1234567890-abcdef', true],
    ['AKIAABCDEFGHIJKLMNOP', true],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', true],
    ['4f9a8b7c6d5e4f3a2b1c', true],
    ['wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY', true],
    ['positional-secret-9z8y7x', true],
    ['/home/me/projects/data', false],
    ['./workspace', false],
    ['src/data/file2.json', false],
    ['@modelcontextprotocol/server-filesystem', false],
    ['@modelcontextprotocol/server-filesytem', false],
    ['mcp-server-sqlite', false],
    ['production', false],
    ['names', false],
    ['2026-11-28T10:00:00Z', false],
    ['us-east-1', false],
  ])('%s looks like a credential: %s', (value, credential) => {
    expect(looksLikeCredential(value)).toBe(credential);
  });
});

describe('secretsOfEnv', () => {
  it('takes values under names that say secret, and values that look like credentials, naming the variable', () => {
    expect(secretsOfEnv({ GITHUB_TOKEN: 'gh-value-x', LEAKY_PIN: '7Qx9', OTHER: 'a8f3k2m9x7q1z5' })).toEqual([
      { value: 'gh-value-x', label: 'env GITHUB_TOKEN', strength: 'strong' },
      { value: '7Qx9', label: 'env LEAKY_PIN', strength: 'strong' },
      { value: 'a8f3k2m9x7q1z5', label: 'env OTHER', strength: 'strong' },
    ]);
  });

  it('leaves everyday words, paths and short values alone', () => {
    expect(
      secretsOfEnv({
        MODE: 'names',
        STAGE: 'prod',
        LOG_LEVEL: 'info',
        DATA_DIR: '/srv/data',
        NODE_ENV: 'production',
        DEBUG: 'true',
        API_KEY: 'abc',
      }),
    ).toEqual([]);
  });

  it('takes the credentials of a URL value, not the URL', () => {
    expect(
      values(secretsOfEnv({ DATABASE_URL: 'postgres://appuser:s3cr3t-pw@db/main', HOME_PAGE: 'https://example.com/docs?page=names' })),
    ).toEqual(['appuser', 's3cr3t-pw']);
  });
});

describe('secretsOfArgs', () => {
  it('takes the value after a flag naming a secret, inline or next, and credential-like arguments', () => {
    const secrets = secretsOfArgs(['-y', 'some-server', '--api-key', 'k-1', '--token=tok-value', '--stdio', '9f8e7d6c5b4a3f2e1d0c']);
    expect(secrets).toEqual([
      { value: 'tok-value', label: 'arg --token', strength: 'strong' },
      { value: '9f8e7d6c5b4a3f2e1d0c', label: 'credential-like argument', strength: 'strong' },
    ]);
    // A secret under 4 characters is no secret: cutting it would mangle text.
    expect(values(secretsOfArgs(['--api-key', 'key-12345']))).toEqual(['key-12345']);
  });

  it('leaves paths, package names and other flags alone', () => {
    expect(
      secretsOfArgs([
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/home/me/projects',
        '--state-dir=/tmp/state',
        '--port',
        '8080',
        'mcp-server-git',
      ]),
    ).toEqual([]);
  });

  it('takes the credentials of a URL argument', () => {
    expect(values(secretsOfArgs(['postgresql://alice:pw-1234@db/main', '--url=https://h/x?access_token=tok-9876']))).toEqual([
      'alice',
      'pw-1234',
      'tok-9876',
    ]);
  });
});

describe('secretsOfHeaders', () => {
  it('takes header values and the credential after the scheme, not plain headers', () => {
    expect(secretsOfHeaders({ Authorization: 'Bearer abc-123-def', 'X-Org': 'my-organization', Accept: 'application/json' })).toEqual([
      { value: 'abc-123-def', label: 'header Authorization', strength: 'strong' },
      { value: 'Bearer abc-123-def', label: 'header Authorization', strength: 'weak' },
      { value: 'my-organization', label: 'header X-Org', strength: 'weak' },
    ]);
  });
});

describe('secretsOfUrl', () => {
  it('takes the user, the password and query values that are secret, encoded too', () => {
    expect(values(secretsOfUrl('https://bobby:p%40ss-word@h/x?key=query-secret-1&region=eu&page=names&sig=a%2Bb%3Dcdef'))).toEqual([
      'bobby',
      'p%40ss-word',
      'p@ss-word',
      'query-secret-1',
      'a+b=cdef',
      'a%2Bb%3Dcdef',
    ]);
  });

  it('says whose URL it is (a user name under 4 characters is no secret)', () => {
    expect(secretsOfUrl('https://u:secret-pw@h/', 'spec URL')).toEqual([
      { value: 'secret-pw', label: 'spec URL password', strength: 'strong' },
    ]);
  });

  it('gives nothing for a path', () => {
    expect(secretsOfUrl('./specs/petstore.yaml')).toEqual([]);
  });
});
