/**
 * What redaction cuts and what it keeps, against real counterparts: an HTTP API that echoes its key
 * (read out of an error a character at a time by padding, issue 28.2), a spec URL with credentials in
 * build errors and the build output (issue 28.3), and the real filesystem MCP server, whose paths and
 * everyday values must show (issue 29.2). Each case is followed by a healthy run.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentSpacesMcpServer, createRunRouter } from '../../server/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');
/** The API key of the echoing service: random-looking, as real keys are. */
const KEY = 'Zk4q9WmR2xT7vB3nP8sL5cY1';
const SPEC_PASSWORD = 'pw-secret-9q8w7e6r';
const SPEC_TOKEN = 'spec-tok-7x6c5v4b3n';

/** Fails naming the piece when 4 or more leading (or trailing) characters of `secret` appear in `text`. */
function expectNoPieceOf(secret: string, text: string): void {
  for (let length = 4; length <= secret.length; length += 1) {
    const prefix = secret.slice(0, length);
    const suffix = secret.slice(secret.length - length);
    if (text.includes(prefix) || text.includes(suffix))
      throw new Error(
        `a piece of the secret leaked (${length} characters): …${text.slice(Math.max(0, text.indexOf(prefix) - 40), text.indexOf(prefix) + 60)}…`,
      );
  }
}

let server: Server;
let base: string;

/** A spec with `GET /echo?text=` (answers 400 quoting the text, then the key it was sent) and `GET /ok`. */
function spec(): Record<string, unknown> {
  const ok = {
    '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } },
  };
  return {
    openapi: '3.0.3',
    info: { title: 'Echo', version: '1.0.0' },
    servers: [{ url: base }],
    paths: {
      '/echo': {
        get: {
          operationId: 'echoText',
          parameters: [{ name: 'text', in: 'query', required: true, schema: { type: 'string' } }],
          responses: ok,
        },
      },
      '/ok': { get: { operationId: 'healthy', responses: ok } },
    },
  };
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/spec.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spec()));
    } else if (url.pathname === '/echo') {
      response
        .writeHead(400, { 'content-type': 'text/plain' })
        .end(`rejected "${url.searchParams.get('text') ?? ''}" for key ${String(request.headers['x-api-key'])}`);
    } else if (url.pathname === '/ok') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    } else {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${url.pathname}${url.search}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function writeConfig(root: string, openapi: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<void> {
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], openapi, ...extra }));
}

/** A program that calls echoText with every padding in [from, to) and returns what each error said. */
function paddingProgram(from: number, to: number): string {
  return [
    "import { echoText } from '@capabilities/openapi-echo';",
    'const seen: string[] = [];',
    `for (let padding = ${from}; padding < ${to}; padding += 1) {`,
    "  try { await echoText({ text: 'a'.repeat(padding) }); } catch (error) {",
    '    const { message, details } = error as { message: string; details?: unknown };',
    '    seen.push(message + JSON.stringify(details));',
    '  }',
    '}',
    'export default seen;',
  ].join('\n');
}

const HEALTHY = "import { healthy } from '@capabilities/openapi-echo';\nexport default await healthy({});";

describe('redaction: a key an API echoes cannot be read out of its error by padding', { timeout: 120_000 }, () => {
  let space: Space;
  beforeAll(async () => {
    const root = await makeTempDir('redaction-echo');
    await writeConfig(root, { echo: { spec: `${base}/spec.json`, headers: { 'X-Api-Key': KEY } } });
    space = await createSpace({ cwd: root });
    expect((await space.build()).errors).toEqual([]);
  });
  afterAll(async () => {
    await space.close();
  });

  it('in a program: whatever the padding, the error shows no piece of the key, and says what was cut', async () => {
    // The excerpt is 500 characters: the key starts at 20 + padding, so these paddings cut inside it.
    const run = await space.run(paddingProgram(455, 485));
    expect(run.success, JSON.stringify(run.error)).toBe(true);
    const seen = run.result as string[];
    expect(seen).toHaveLength(30);
    for (const text of seen) expectNoPieceOf(KEY, text);
    expect(seen.some((text) => text.includes('[REDACTED: header X-Api-Key]'))).toBe(true);
    expect(seen[0]).toContain('answered 400');
    expect(await space.run(HEALTHY)).toMatchObject({ success: true, result: { ok: true } });
  });

  it('for a remote execute_code caller of serve, the same', async () => {
    const router = createRunRouter();
    const mcp = await createAgentSpacesMcpServer(space, router, { name: 'agent-spaces', version: '0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'hostile-client', version: '1' });
    await client.connect(clientSide);
    try {
      const reply = await client.callTool({ name: 'execute_code', arguments: { code: paddingProgram(470, 482) } });
      const text = JSON.stringify(reply);
      expectNoPieceOf(KEY, text);
      expect(reply.structuredContent).toMatchObject({ success: true });
      const healthy = await client.callTool({ name: 'execute_code', arguments: { code: HEALTHY } });
      expect(healthy.structuredContent).toMatchObject({ success: true, result: { ok: true } });
    } finally {
      await client.close();
    }
  });
});

describe('redaction: credentials in a spec URL', { timeout: 180_000 }, () => {
  const credentialed = (file: string): string =>
    `http://alice:${SPEC_PASSWORD}@${base.slice('http://'.length)}/${file}?token=${SPEC_TOKEN}`;
  const expectNoCredentials = (text: string): void => {
    expect(text).not.toContain(SPEC_PASSWORD);
    expect(text).not.toContain(SPEC_TOKEN);
  };
  const build = (root: string, json: boolean) =>
    execa(process.execPath, [BIN, 'capabilities', 'build', ...(json ? ['--json'] : [])], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
      extendEnv: false,
      reject: false,
      timeout: 90_000,
    });

  async function filesUnder(dir: string): Promise<string[]> {
    const entries = await readdir(dir, { withFileTypes: true, recursive: true });
    return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
  }

  it("are not in a failed build's errors, as text or --json", async () => {
    const root = await makeTempDir('redaction-spec-url');
    await writeConfig(root, { echo: { spec: credentialed('missing.json') } });
    for (const json of [false, true]) {
      const result = await build(root, json);
      expect(result.exitCode).not.toBe(0);
      expectNoCredentials(result.stdout + result.stderr);
      expect(result.stdout + result.stderr).toContain('missing.json');
    }
    // Healthy: the same space with a spec URL that answers builds.
    await writeConfig(root, { echo: { spec: `${base}/spec.json` } });
    expect((await build(root, true)).exitCode).toBe(0);
  });

  it('are not in the build output (manifest, declarations, catalog)', async () => {
    const root = await makeTempDir('redaction-spec-url-ok');
    await writeConfig(root, { echo: { spec: credentialed('spec.json') } });
    const result = await build(root, true);
    expect(result.exitCode, result.stderr).toBe(0);
    expectNoCredentials(result.stdout + result.stderr);
    const files = await filesUnder(path.join(root, '.agent-spaces'));
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expectNoCredentials(await readFile(file, 'utf8'));
    const space = await createSpace({ cwd: root });
    try {
      expect(await space.run(HEALTHY)).toMatchObject({ success: true, result: { ok: true } });
    } finally {
      await space.close();
    }
  });
});

describe('redaction: the real filesystem MCP server keeps its paths and everyday values', { timeout: 180_000 }, () => {
  const TOKEN = 'ghp_R3alLook1ngT0kenAbCdEf0123456789';
  let root: string;
  let allowed: string;
  beforeAll(async () => {
    root = await makeTempDir('redaction-fs');
    allowed = path.join(root, 'shared-files');
    await mkdir(allowed);
    await writeFile(path.join(allowed, 'notes.txt'), `mode names, stage prod, level info; token ${TOKEN}\n`);
    await writeConfig(
      root,
      {},
      {
        mcpServers: {
          fs: {
            command: process.execPath,
            args: [path.join(REPO, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), allowed],
            env: { MODE: 'names', STAGE: 'prod', LOG_LEVEL: 'info', GITHUB_TOKEN: TOKEN },
          },
        },
      },
    );
  });

  /** `agent-spaces run --json` of a program: what the user sees. */
  async function runProgram(code: string): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }> {
    const file = path.join(root, `program-${Math.random().toString(36).slice(2)}.ts`);
    await writeFile(file, code);
    const result = await execa(process.execPath, [BIN, 'run', file, '--json'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '' },
      extendEnv: false,
      reject: false,
      timeout: 120_000,
      stdin: 'ignore',
    });
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  }

  it('shows the allowed directory, the paths in its errors and short env values; cuts the token, saying whose it is', async () => {
    const result = await runProgram(
      [
        "import * as fs from '@capabilities/mcp-fs';",
        'const allowedDirs = await fs.listAllowedDirectories({});',
        `const notes = await fs.readTextFile({ path: ${JSON.stringify(path.join(allowed, 'notes.txt'))} });`,
        'let missing = "";',
        `try { await fs.readTextFile({ path: ${JSON.stringify(path.join(allowed, 'no-such-file.txt'))} }); } catch (error) { missing = (error as Error).message; }`,
        'console.log(missing);',
        'export default { allowedDirs, notes, missing };',
      ].join('\n'),
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as {
      success: boolean;
      result: { allowedDirs: unknown; notes: unknown; missing: string };
      logs: { message: string }[];
    };
    expect(run.success).toBe(true);
    expect(JSON.stringify(run.result.allowedDirs)).toContain(allowed);
    expect(JSON.stringify(run.result.notes)).toContain('mode names, stage prod, level info; token [REDACTED: env GITHUB_TOKEN]');
    expect(run.result.missing).toContain(path.join(allowed, 'no-such-file.txt'));
    expect(run.logs[0]?.message).toContain(path.join(allowed, 'no-such-file.txt'));
    expect(result.stdout).not.toContain('[REDACTED: env MODE]');
    // Healthy: a plain call after the failing one.
    const healthy = await runProgram("import * as fs from '@capabilities/mcp-fs';\nexport default await fs.listAllowedDirectories({});");
    expect(healthy.exitCode, healthy.stderr).toBe(0);
  });
});
