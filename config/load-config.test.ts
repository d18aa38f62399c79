import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/index.js';
import { expandEnvString } from './expand-env.js';
import { loadConfig, resolveConfig } from './load-config.js';

describe('expandEnvString', () => {
  const env = { HOME: '/home/me', EMPTY: '' };
  it.each([
    ['${HOME}/x', '/home/me/x'],
    ['${MISSING:-fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${HOME:-unused}', '/home/me'],
    ['no variables', 'no variables'],
    ['${MISSING:-}', ''],
    ['a ${HOME} b ${MISSING:-c}', 'a /home/me b c'],
  ])('%s → %s', (input, expected) => {
    const issues: { path: string; message: string }[] = [];
    expect(expandEnvString(input, env, 'x', issues)).toBe(expected);
    expect(issues).toEqual([]);
  });

  it('reports an unset variable with its path instead of replacing it', () => {
    const issues: { path: string; message: string }[] = [];
    expandEnvString('Bearer ${TOKEN}', env, 'mcpServers.github.headers.Authorization', issues);
    expect(issues).toEqual([{ path: 'mcpServers.github.headers.Authorization', message: expect.stringContaining('TOKEN is not set') }]);
  });
});

describe('resolveConfig', () => {
  it('expands variables in command, args, env, url and headers', () => {
    const config = resolveConfig(
      {
        mcpServers: {
          local: { command: '${BIN:-node}', args: ['${DIR}/server.js'], env: { KEY: '${SECRET}' } },
          remote: { url: 'https://${HOST}/mcp', headers: { Authorization: 'Bearer ${SECRET}' } },
        },
      },
      { root: '/space', env: { DIR: '/srv', SECRET: 's3cret', HOST: 'example.com' } },
    );
    expect(config.mcpServers.local).toEqual({
      command: 'node',
      args: ['/srv/server.js'],
      env: { KEY: 's3cret' },
      cwd: path.resolve('/space'),
    });
    expect(config.mcpServers.remote).toEqual({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer s3cret' } });
    expect(config.outDir).toBe(path.resolve('/space/.agent-spaces'));
  });

  it('lists every problem with its path', () => {
    let caught: unknown;
    try {
      resolveConfig(
        { capabilities: 'tools', outDir: 3, mcpServers: { bad: { args: [] }, web: { url: 'not a url' } }, extra: true },
        { root: '/space', env: {} },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const paths = (caught as ConfigError).issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(expect.arrayContaining(['capabilities', 'outDir', 'extra', 'mcpServers.web.url']));
    expect(paths.some((p) => p.startsWith('mcpServers.bad'))).toBe(true);
    expect((caught as ConfigError).message).toContain('mcpServers.web.url');
  });

  it('says what is wrong with a server name, and suggests the key a typo meant, inside servers too', () => {
    let caught: unknown;
    try {
      resolveConfig(
        { capabilitis: [], mcpServers: { größe: { command: 'x' }, a: { comand: 'x' }, b: { url: 'https://x', header: {} } } },
        { root: '/', env: {} },
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).issues).toEqual(
      expect.arrayContaining([
        { path: 'mcpServers.größe', message: 'server names use letters, digits, _ . -' },
        { path: 'mcpServers.a.comand', message: 'unknown key (did you mean "command"?)' },
        { path: 'mcpServers.b.header', message: 'unknown key (did you mean "headers"?)' },
        { path: 'capabilitis', message: 'unknown key (did you mean "capabilities"?)' },
      ]),
    );
  });

  it('suggests the key a typo meant inside durable too', () => {
    expect(() => resolveConfig({ durable: { idempotnt: ['ledger.*'] } }, { root: '/', env: {} })).toThrow(
      'durable.idempotnt: unknown key (did you mean "idempotent"?)',
    );
  });

  it('lists every missing variable, not only the first', () => {
    expect(() => resolveConfig({ mcpServers: { a: { command: '${A}' }, b: { url: 'https://x/${B}' } } }, { root: '/', env: {} })).toThrow(
      /mcpServers\.a\.command[\s\S]*mcpServers\.b\.url/,
    );
  });

  it('skips disabled servers without expanding them', () => {
    const config = resolveConfig({ mcpServers: { off: { command: '${NOPE}', disabled: true } } }, { root: '/', env: {} });
    expect(config.mcpServers).toEqual({});
  });
});

describe('loadConfig', () => {
  it('loads agent-spaces.config.ts with defineConfig and resolves paths against its folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'as-config-'));
    const defineConfigUrl = new URL('./define-config.ts', import.meta.url).href;
    await writeFile(
      path.join(dir, 'agent-spaces.config.ts'),
      `import { defineConfig } from '${defineConfigUrl}';\nexport default defineConfig({ outDir: 'build', capabilities: ['tools/*.json'] });\n`,
    );
    const config = await loadConfig({ cwd: dir });
    expect(config.outDir).toBe(path.join(dir, 'build'));
    expect(config.capabilities).toEqual(['tools/*.json']);
    expect(config.file).toBe(path.join(dir, 'agent-spaces.config.ts'));
  });

  it('loads a JSON config and reports invalid JSON clearly', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'as-config-'));
    await writeFile(path.join(dir, 'agent-spaces.config.json'), '{"outDir": "out"}');
    expect((await loadConfig({ cwd: dir })).outDir).toBe(path.join(dir, 'out'));
    await writeFile(path.join(dir, 'broken.json'), '{"outDir": ');
    await expect(loadConfig({ cwd: dir, file: 'broken.json' })).rejects.toThrow(/broken\.json is not valid JSON/);
    // Where, as a person editing the file counts: line and column.
    await writeFile(path.join(dir, 'broken.json'), '{\n  "outDir": "out",\n  "capabilities": [,]\n}\n');
    await expect(loadConfig({ cwd: dir, file: 'broken.json' })).rejects.toThrow(/\(line 3, column 20\)$/);
  });

  it('uses the defaults when there is no config file, and fails for a named file that is missing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'as-config-'));
    const config = await loadConfig({ cwd: dir });
    expect(config.file).toBeUndefined();
    expect(config.outDir).toBe(path.join(dir, '.agent-spaces'));
    await expect(loadConfig({ cwd: dir, file: 'nope.ts' })).rejects.toThrow(/config file not found: nope\.ts/);
    await writeFile(path.join(dir, 'named.ts'), 'export const config = {};\n');
    await expect(loadConfig({ cwd: dir, file: 'named.ts' })).rejects.toThrow(
      /has no default export: write export default defineConfig\(\{ \.\.\. \}\)/,
    );
  });
});

describe('agents entries', () => {
  it('keeps http(s) URLs, and resolves paths and file:// URLs to directories', async () => {
    const { isRemoteAgent, resolveAgentEntry } = await import('./agent-entries.js');
    expect(isRemoteAgent('https://agents.example/desk')).toBe(true);
    expect(isRemoteAgent('file:///srv/agents/desk')).toBe(false);
    expect(resolveAgentEntry('https://agents.example/desk', '/space')).toBe('https://agents.example/desk');
    expect(resolveAgentEntry('file:///srv/agents/desk', '/space')).toBe('/srv/agents/desk');
    expect(resolveAgentEntry('agents/desk', '/space')).toBe('/space/agents/desk');
    // A file:// URL in the config was resolved as a relative path before ("/space/file:/srv/…").
    expect(resolveConfig({ agents: ['file:///srv/agents/desk', 'https://agents.example/'] }, { root: '/space', env: {} }).agents).toEqual([
      '/srv/agents/desk',
      'https://agents.example/',
    ]);
  });
});
