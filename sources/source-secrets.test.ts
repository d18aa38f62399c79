// Every registered kind of capability source declares the secrets of its configuration (a kind that
// forgot would leak them into errors, traces and the store): the interface requires `secrets`, and
// this test asks each kind `defaultSources` registers, and the agents' source, for them.
import { describe, expect, it } from 'vitest';
import { createAgentSource } from '../agents/index.js';
import { resolveConfig } from '../config/index.js';
import { kindsOf } from '../core/index.js';
import { defaultSources } from '../space/index.js';
import { secretsOfConfig } from './index.js';

const config = resolveConfig(
  {
    capabilities: [],
    mcpServers: {
      gh: {
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-github', '/home/me/repos', '--token', 'tok-9f8e7d6c5b'],
        env: { GITHUB_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123', MODE: 'prod' },
      },
      web: { url: 'https://mcp.example.com/mcp?key=query-key-4d3c2b1a&region=eu', headers: { Authorization: 'Bearer hdr-token-1a2b3c4d' } },
    },
    openapi: { pets: { spec: 'https://alice:spec-pw-5e6f7a@specs.example.com/pets.yaml', headers: { 'X-Api-Key': 'pets-key-0a9b8c7d' } } },
    model: { apiKey: 'sk-model-key-abcdefghijklmnop' },
    store: 'postgres://app:store-pw-1q2w3e@db.example.com/spaces',
    telemetry: { otlp: { endpoint: 'https://otlp.example.com', headers: { 'x-honeycomb-team': 'otlp-team-key-5t6y7u' } } },
  },
  { root: '/tmp', env: {} },
);

describe('source secrets', () => {
  it('every registered kind declares its secrets', () => {
    const sources = [...defaultSources(config), createAgentSource({ tools: [], backends: {}, problems: [] })];
    for (const source of sources) {
      expect(typeof source.secrets, `source ${kindsOf(source).join('+')} declares no secrets()`).toBe('function');
      expect(Array.isArray(source.secrets(config))).toBe(true);
    }
  });

  it('joins what each source declares with the model key and the store URL, each labelled', () => {
    const byValue = new Map(secretsOfConfig(config, { env: {} }).map((secret) => [secret.value, secret.label]));
    expect(Object.fromEntries(byValue)).toMatchObject({
      'tok-9f8e7d6c5b': 'arg --token',
      ghp_abcdefghijklmnopqrstuvwxyz0123: 'env GITHUB_TOKEN',
      'query-key-4d3c2b1a': 'URL query key',
      'hdr-token-1a2b3c4d': 'header Authorization',
      'spec-pw-5e6f7a': 'spec URL password',
      'pets-key-0a9b8c7d': 'header X-Api-Key',
      'sk-model-key-abcdefghijklmnop': 'model API key',
      'store-pw-1q2w3e': 'store URL password',
      'otlp-team-key-5t6y7u': 'header x-honeycomb-team',
    });
    // Not secrets: a path, a package name, an everyday env value, a query value that names a region.
    for (const value of ['/home/me/repos', '@modelcontextprotocol/server-github', 'prod', 'eu', 'npx'])
      expect(byValue.has(value), value).toBe(false);
  });

  it('takes OPENAI_API_KEY from the environment as the model key', () => {
    expect(
      secretsOfConfig(config, { sources: [], env: { OPENAI_API_KEY: 'sk-env-key-0123456789abcdef' } }).map((secret) => secret.label),
    ).toContain('env OPENAI_API_KEY');
  });
});
