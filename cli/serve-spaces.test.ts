// `agent-spaces serve --http 0 --spaces a,vault=./b` (the real bin): two folders served as two spaces of
// one host, each at /spaces/<name>/mcp, reached by the SDK v2 client over Streamable HTTP.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../test/support/example-space.js';
import { makeTempDir } from '../test/support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');
const OPEN_VAULT = "import { vault } from '@capabilities/vault';\nexport default await vault.open();";

let root: string;
let serving: ResultPromise<{ env: Record<string, string>; reject: false; all: true }> | undefined;

beforeAll(async () => {
  root = await makeTempDir('serve-spaces-cli');
  await mkdir(path.join(root, 'a'), { recursive: true });
  const crm = path.relative(path.join(root, 'a'), path.join(REPO, 'capabilities/crm.ts')).split(path.sep).join('/');
  await writeFile(path.join(root, 'a', 'agent-spaces.config.json'), JSON.stringify({ capabilities: [crm] }));
  // b has no config file: the defaults (tools/*.json, …) against its folder.
  await mkdir(path.join(root, 'b', 'tools', 'impl'), { recursive: true });
  await writeFile(path.join(root, 'b', 'tools', 'impl', 'vault.mjs'), "export function open() { return 'the vault of b'; }\n");
  await writeFile(
    path.join(root, 'b', 'tools', 'vault.json'),
    JSON.stringify({
      name: 'vault',
      implementation: './impl/vault.mjs',
      functions: [{ name: 'open', parameters: { type: 'object', properties: {} }, returns: { type: 'string' } }],
    }),
  );
});

afterAll(async () => {
  if (serving) {
    serving.kill('SIGTERM');
    await serving;
  }
});

/** Waits for the served URLs the CLI prints on stderr, one per space. */
function servedUrls(child: NonNullable<typeof serving>, count: number): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const urls: Record<string, string> = {};
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      for (const match of text.matchAll(/serving space "([^"]+)" over MCP \(Streamable HTTP\) at (\S+)/g))
        urls[match[1] ?? ''] = match[2] ?? '';
      if (Object.keys(urls).length === count) resolve(urls);
    });
    void child.then((result) => reject(new Error(`serve exited (${String(result.exitCode)}) before serving:\n${text}`)));
  });
}

describe('agent-spaces serve --spaces', () => {
  it('serves each folder as a space at /spaces/<name>/mcp, each reaching only its own modules', async () => {
    serving = execa(process.execPath, [BIN, 'serve', '--cwd', root, '--http', '0', '--spaces', 'a,vault=./b'], {
      env: { AGENT_SPACES_HOME: path.join(root, 'home') },
      reject: false,
      all: true,
    });
    const urls = await servedUrls(serving, 2);
    expect(Object.keys(urls).sort()).toEqual(['a', 'vault']);
    expect(urls.vault).toMatch(/\/spaces\/vault\/mcp$/);
    const clients = await Promise.all(
      [urls.a, urls.vault].map(async (url) => {
        const client = new Client({ name: 'cli-test', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await client.connect(new StreamableHTTPClientTransport(new URL(url ?? '')));
        return client;
      }),
    );
    try {
      const [a, vault] = clients as [Client, Client];
      expect(await vault.callTool({ name: 'execute_code', arguments: { code: OPEN_VAULT } })).toMatchObject({
        structuredContent: { success: true, result: 'the vault of b' },
      });
      expect(await a.callTool({ name: 'execute_code', arguments: { code: OPEN_VAULT } })).toMatchObject({
        structuredContent: { success: false },
      });
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });

  it('refuses --spaces without --http, a folder that is not there and a name given twice (serve and studio), as usage errors', async () => {
    const noHttp = await execa(process.execPath, [BIN, 'serve', '--cwd', root, '--spaces', 'a'], { reject: false });
    expect(noHttp.exitCode).toBe(2);
    expect(noHttp.stderr).toMatch(/--spaces serves over HTTP: pass --http <port>/);
    const missing = await execa(process.execPath, [BIN, 'serve', '--cwd', root, '--http', '0', '--spaces', 'a,nope'], { reject: false });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--spaces: "nope": no folder at/);
    const studio = await execa(process.execPath, [BIN, 'studio', '--cwd', root, '--spaces', 'a,a=./b'], { reject: false });
    expect(studio.exitCode).toBe(2);
    expect(studio.stderr).toMatch(/--spaces: "a=\.\/b" and "a" are both named "a"/);
  });
});
