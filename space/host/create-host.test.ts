import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../core/index.js';
import { createSpace } from '../create-space.js';
import { createHost, type Host } from './create-host.js';

const counterServer = fileURLToPath(new URL('./__fixtures__/counting-server.mjs', import.meta.url));

let dir: string;
let countFile: string;
let host: Host;
const asked: Record<'a' | 'b', ApprovalRequest[]> = { a: [], b: [] };

/** A tool file with one function per name, implemented in `impl/<name>.mjs`, optionally rate-limited. */
async function toolFile(name: string, fn: string, body: string, config?: Record<string, unknown>): Promise<void> {
  await mkdir(path.join(dir, 'tools', 'impl'), { recursive: true });
  await writeFile(path.join(dir, 'tools', 'impl', `${name}.mjs`), `export function ${fn}() { ${body} }\n`);
  await writeFile(
    path.join(dir, 'tools', `${name}.json`),
    JSON.stringify({
      name,
      implementation: `./impl/${name}.mjs`,
      functions: [{ name: fn, parameters: { type: 'object', properties: {} }, returns: { type: 'string' } }],
      ...(config ? { config } : {}),
    }),
  );
}

async function serverStarts(): Promise<number> {
  const text = await readFile(countFile, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).length;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'agent-spaces-host-'));
  countFile = path.join(dir, 'server-starts.txt');
  await toolFile('limited', 'ping', "return 'pong';", { rateLimit: { requests: 1, period: 'minute' } });
  await toolFile('vault', 'open', "return 'the vault of b';");
  host = await createHost({
    dir,
    registryFile: false,
    sandbox: { workers: 1 },
    registry: {
      mcpServers: {
        counter: { command: process.execPath, args: [counterServer], env: { COUNT_FILE: countFile }, requireApproval: ['act'] },
      },
      files: { limited: './tools/limited.json', vault: './tools/vault.json' },
    },
  });
  await host.spaces.create({
    name: 'a',
    capabilities: ['mcp:counter', 'files:limited'],
    approvalHandler: (request) => (asked.a.push(request), true),
  });
  await host.spaces.create({
    name: 'b',
    capabilities: ['mcp:*', 'files:*'],
    approvalHandler: (request) => (asked.b.push(request), { approved: false, reason: 'b says no' }),
  });
  await Promise.all(['a', 'b'].map((name) => host.spaces.get(name)?.build()));
}, 120_000);

afterAll(async () => {
  await host?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a host of several spaces', () => {
  it('lists its spaces, each with its own build output folder under the host', () => {
    expect(host.spaces.list()).toEqual([
      {
        name: 'a',
        dir: path.join(dir, 'spaces', 'a'),
        outDir: path.join(dir, 'spaces', 'a', '.agent-spaces'),
        selected: ['mcp:counter', 'files:limited'],
      },
      {
        name: 'b',
        dir: path.join(dir, 'spaces', 'b'),
        outDir: path.join(dir, 'spaces', 'b', '.agent-spaces'),
        selected: ['mcp:*', 'files:*'],
      },
    ]);
    expect(host.spaces.get('c')).toBeUndefined();
  });

  it("refuses a program of space A that imports a module only B has, and A's direct call of it", async () => {
    const a = host.spaces.get('a')!;
    const b = host.spaces.get('b')!;
    const program = `import { open } from '@capabilities/vault'; export default await open({});`;
    expect((await b.run(program)).result).toBe('the vault of b');
    const checked = await a.run(program);
    expect(checked.success).toBe(false);
    expect(checked.error?.message).toMatch(/@capabilities\/vault/);
    const unchecked = await a.run(program, { check: false });
    expect(unchecked.success).toBe(false);
    expect(unchecked.result).not.toBe('the vault of b');
    expect(unchecked.error?.message).toMatch(/@capabilities\/vault/);
    await expect(a.callTool('vault.open', {})).rejects.toMatchObject({ code: 'UNKNOWN_CAPABILITY' });
  });

  it('connects once to an MCP server two spaces reach with the same credentials (counted by the server)', async () => {
    const before = await serverStarts();
    const [pidA, pidB] = await Promise.all([
      host.spaces.get('a')!.callTool('mcp-counter.whoami', {}),
      host.spaces.get('b')!.callTool('mcp-counter.whoami', {}),
    ]);
    expect(pidA).toBe(pidB);
    expect(await serverStarts()).toBe(before + 1);
    expect(host.mcpConnections().open).toBe(1);
    // Again from a program of each space: the same process answers.
    const run = `import { whoami } from '@capabilities/mcp-counter'; export default await whoami({});`;
    expect((await host.spaces.get('b')!.run(run)).result).toBe(pidA);
    expect(await serverStarts()).toBe(before + 1);
  });

  it("asks each space's own approver only, for its own calls", async () => {
    asked.a.length = 0;
    asked.b.length = 0;
    await expect(host.spaces.get('a')!.callTool('mcp-counter.act', { what: 'ship it' })).resolves.toBe('done: ship it');
    expect(asked.a.map((request) => request.params)).toEqual([{ what: 'ship it' }]);
    expect(asked.b).toEqual([]);
    await expect(host.spaces.get('b')!.callTool('mcp-counter.act', { what: 'drop it' })).rejects.toThrow(/b says no/);
    expect(asked.b.map((request) => request.params)).toEqual([{ what: 'drop it' }]);
    expect(asked.a).toHaveLength(1);
  });

  it('counts rate limits per space', async () => {
    const a = host.spaces.get('a')!;
    await expect(a.callTool('limited.ping', {})).resolves.toBe('pong');
    await expect(a.callTool('limited.ping', {})).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await expect(host.spaces.get('b')!.callTool('limited.ping', {})).resolves.toBe('pong');
  });

  it('runs every space in one sandbox pool', async () => {
    const program = `export default 6 * 7;`;
    const [ra, rb] = await Promise.all([host.spaces.get('a')!.run(program), host.spaces.get('b')!.run(program)]);
    expect([ra.result, rb.result]).toEqual([42, 42]);
    expect(host.sandboxPids()).toHaveLength(1);
  });

  it('refuses a selection naming nothing (with the closest entry), a name in use and a bad name', async () => {
    await expect(host.spaces.create({ name: 'c', capabilities: ['mcp:countr'] })).rejects.toThrow(/did you mean "mcp:counter"\?/);
    await expect(host.spaces.create({ name: 'a' })).rejects.toThrow(/a space named "a" is already on this host/);
    await expect(host.spaces.create({ name: 'Bad Name' })).rejects.toThrow(/a space's name must be/);
    expect(host.spaces.list().map((space) => space.name)).toEqual(['a', 'b']);
  });

  it('createSpace takes the same selection in its config, with a registry', async () => {
    const own = path.join(dir, 'own');
    await mkdir(own, { recursive: true });
    await writeFile(path.join(own, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['files:vault'] }));
    const space = await createSpace({ cwd: own, registry: host.registry, isolation: 'in-process', engine: 'quickjs' });
    try {
      expect(space.config.capabilities).toEqual([path.join(dir, 'tools', 'vault.json')]);
      await expect(space.callTool('vault.open', {})).resolves.toBe('the vault of b');
    } finally {
      await space.close();
    }
  });

  it('removes a space, closing it', async () => {
    await host.spaces.create({ name: 'short-lived', capabilities: ['files:vault'] });
    await host.spaces.remove('short-lived');
    expect(host.spaces.get('short-lived')).toBeUndefined();
    await expect(host.spaces.remove('short-lived')).rejects.toThrow(/no space "short-lived" on this host \(it has "a", "b"\)/);
  });
});
