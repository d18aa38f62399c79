import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/index.js';
import { loadConfig, resolveConfig } from './load-config.js';
import { agentSpacesHome, loadRegistry, mergeRegistries, resolveRegistry, selectFromRegistry } from './registry.js';

let home: string;
let space: string;

beforeAll(async () => {
  home = await mkdtemp(path.join(os.tmpdir(), 'registry-home-'));
  space = await mkdtemp(path.join(os.tmpdir(), 'registry-space-'));
  await writeFile(
    path.join(home, 'registry.config.json'),
    JSON.stringify({
      mcpServers: {
        slack: { command: 'node', args: ['slack.mjs'], env: { TOKEN: '${SLACK_TOKEN}' } },
        github: { url: 'https://mcp.example.com/github', headers: { Authorization: 'Bearer ${GH}' } },
      },
      openapi: { github: { spec: './specs/github.yaml' } },
      files: { crm: './tools/crm.json', notes: ['./tools/notes/*.json', './tools/extra.ts'] },
      agents: { guide: './agents/guide', remote: 'https://agents.example.com/a2a' },
      sdks: { company: { module: './sdk/company' } },
    }),
  );
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(space, { recursive: true, force: true });
});

const env = { SLACK_TOKEN: 'xoxb-1', GH: 'ghp-2' };

describe('the registry', () => {
  it('is found in $AGENT_SPACES_HOME (else ~/.agent-spaces) and resolved against its own folder', async () => {
    expect(agentSpacesHome({ AGENT_SPACES_HOME: home })).toBe(home);
    expect(agentSpacesHome({})).toBe(path.join(os.homedir(), '.agent-spaces'));
    const registry = await loadRegistry({ env: { ...env, AGENT_SPACES_HOME: home } });
    expect(registry.entries['mcp']?.['slack']).toMatchObject({ command: 'node', env: { TOKEN: 'xoxb-1' }, cwd: home });
    expect(registry.entries['openapi']?.['github']).toMatchObject({ spec: path.join(home, 'specs/github.yaml') });
    expect(registry.entries['files']?.['notes']).toEqual([path.join(home, 'tools/notes/*.json'), path.join(home, 'tools/extra.ts')]);
    expect(registry.entries['agent']?.['remote']).toEqual(['https://agents.example.com/a2a']);
    expect(registry.entries['sdk']?.['company']).toEqual({ module: path.join(home, 'sdk/company') });
  });

  it('is empty without a file, and an unknown key is named with the closest one', async () => {
    expect((await loadRegistry({ home: space })).entries).toEqual({});
    expect(() => resolveRegistry({ mcpServer: {} }, { root: home })).toThrow(/mcpServer: unknown key \(did you mean "mcpServers"\?\)/);
  });

  it('fills a space config from `capabilities` selections: names, globs, and plain files kept', async () => {
    const registry = await loadRegistry({ home, env });
    await writeFile(
      path.join(space, 'agent-spaces.config.json'),
      JSON.stringify({ capabilities: ['mcp:*', 'openapi:github', 'files:notes', 'agent:guide', 'tools/own.json'] }),
    );
    const config = await loadConfig({ cwd: space, registry });
    expect(Object.keys(config.mcpServers).sort()).toEqual(['github', 'slack']);
    expect(config.openapi?.['github']?.spec).toBe(path.join(home, 'specs/github.yaml'));
    expect(config.capabilities).toEqual(['tools/own.json', path.join(home, 'tools/notes/*.json'), path.join(home, 'tools/extra.ts')]);
    expect(config.agents).toEqual([path.join(home, 'agents/guide')]);
    const withSdk = selectFromRegistry(resolveConfig({ capabilities: ['sdk:company'] }, { root: space }), registry);
    expect(withSdk.sdks).toEqual({ company: { module: path.join(home, 'sdk/company') } });
  });

  it('names the closest entries when a selection names nothing', () => {
    const registry = resolveRegistry(
      { mcpServers: { slack: { command: 'node' } }, openapi: { github: { spec: 'x.yaml' } } },
      { root: home },
    );
    const select = (capabilities: string[]) => () => selectFromRegistry(resolveConfig({ capabilities }, { root: space }), registry);
    expect(select(['mcp:slak'])).toThrow(/capabilities\[0\]: "mcp:slak" is not in the registry \(code\): did you mean "mcp:slack"\?/);
    expect(select(['mcp:github'])).toThrow(/did you mean "openapi:github"\?/);
    expect(select(['openapi:g*', 'files:crm'])).toThrow(
      /capabilities\[1\]: "files:crm" is not in the registry \(code\): it holds no tool files/,
    );
    expect(select(['mpc:slack'])).toThrow(/"mpc:" is no kind of registry entry \(did you mean "mcp:"\?\)/);
    expect(select(['agent:*'])).toThrow(ConfigError);
  });

  it("keeps the space's own entry over a glob's, and refuses one defined and selected by exact name", () => {
    const registry = resolveRegistry({ mcpServers: { slack: { command: 'registry-slack' } } }, { root: home });
    const own = { mcpServers: { slack: { command: 'own-slack' } } };
    const byGlob = selectFromRegistry(resolveConfig({ ...own, capabilities: ['mcp:*'] }, { root: space }), registry);
    expect(byGlob.mcpServers['slack']).toMatchObject({ command: 'own-slack' });
    expect(() => selectFromRegistry(resolveConfig({ ...own, capabilities: ['mcp:slack'] }, { root: space }), registry)).toThrow(
      /mcpServers\.slack: defined by the space and selected from the registry as "mcp:slack": keep one/,
    );
  });

  it('merges a registry in code over the file one', () => {
    const file = resolveRegistry({ mcpServers: { a: { command: 'file-a' }, b: { command: 'file-b' } } }, { root: home, file: 'r.json' });
    const code = resolveRegistry({ mcpServers: { b: { command: 'code-b' } } }, { root: home });
    const merged = mergeRegistries(file, code);
    expect(merged.entries['mcp']).toMatchObject({ a: { command: 'file-a' }, b: { command: 'code-b' } });
    expect(merged.origins).toEqual(['r.json', 'code']);
  });
});
