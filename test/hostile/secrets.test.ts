/**
 * Hostile MCP servers that repeat their secrets — env, args, headers, URL query and userinfo — in
 * JSON-RPC errors, isError results, plain results and on stderr (when they crash and when they fail to
 * restart). Through a real sandbox run of a space and through `agent-spaces run --json`, no secret may
 * reach the program, an event, stdout or stderr; each case is followed by a healthy run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServer, createMcpBackend, listAllTools } from '../../sources/mcp/index.js';
import { callOf, capabilityFromTools } from '../../sources/mcp/test-support/mcp-test-calls.js';
import type { BridgeEvent, RunResult } from '../../core/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createAgentSpacesMcpServer, createRunRouter } from '../../server/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const FIXTURE = path.join(REPO, 'test/fixtures/secret-echo-server.mjs');
const BIN = path.join(REPO, 'bin/agent-spaces.js');

const SECRETS = {
  env: 'env-secret-4f9a8b7c6d',
  shortEnv: '7Qx9',
  apiKeyArg: 'arg-secret-1a2b3c4d5e',
  positionalArg: 'positional-secret-9z8y7x',
  header: 'header-secret-0a1b2c3d4e5f',
  apiKeyHeader: 'xkey-secret-5e6f7a8b',
  query: 'query-secret-c0ffee42',
  userinfo: 'userinfo-secret-77aa',
  model: 'sk-model-secret-abcdefghijklmnop',
};

/** What the HTTP fixture says it was called with, as the program may see it: the query's key cut, its region (no secret) kept. */
const WEB_SEEN =
  'authorization=[REDACTED: header Authorization] x-api-key=[REDACTED: header X-Api-Key] url=/mcp?key=[REDACTED: URL query key]&region=eu';

/** Fails naming the secret when any of them appears in `value` (as JSON) or in text. */
function expectNoSecret(value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const [name, secret] of Object.entries(SECRETS)) {
    if (text.includes(secret))
      throw new Error(`secret "${name}" leaked: …${text.slice(Math.max(0, text.indexOf(secret) - 120), text.indexOf(secret) + 40)}…`);
  }
}

let root: string;
let stateDir: string;
let command: string;
let httpServer: ChildProcess;
let httpUrl: string;

/** A space whose config holds secrets in every place one can: stdio env and args, HTTP headers and query. */
async function writeSpace(): Promise<void> {
  root = await makeTempDir('secrets');
  stateDir = path.join(root, 'state');
  await mkdir(stateDir);
  await mkdir(path.join(root, 'bin'));
  // The server's command is a link to node, so a test can make it disappear (a restart that cannot spawn).
  command = path.join(root, 'bin', 'leaky-node');
  await symlink(process.execPath, command);
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify({
      capabilities: [],
      mcpServers: {
        leaky: {
          command,
          args: [FIXTURE, `--state-dir=${stateDir}`, `--api-key=${SECRETS.apiKeyArg}`, SECRETS.positionalArg],
          env: { LEAKY_TOKEN: SECRETS.env, LEAKY_PIN: SECRETS.shortEnv },
          timeoutMs: 10_000,
        },
        'leaky-web': {
          url: `${httpUrl}?key=${SECRETS.query}&region=eu`,
          headers: { Authorization: `Bearer ${SECRETS.header}`, 'X-Api-Key': SECRETS.apiKeyHeader },
        },
      },
      model: { apiKey: SECRETS.model },
    }),
  );
}

async function startHttpFixture(): Promise<void> {
  httpServer = spawn(process.execPath, [FIXTURE, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: httpServer.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    httpServer.once('exit', (code) => reject(new Error(`the HTTP fixture exited with ${code}`)));
  });
  lines.close();
  httpUrl = (JSON.parse(first) as { url: string }).url;
}

beforeAll(async () => {
  await startHttpFixture();
  await writeSpace();
});

afterAll(() => {
  httpServer.kill();
});

describe('secrets: a sandbox run of a space with hostile MCP servers', () => {
  let space: Space;
  const events: BridgeEvent[] = [];

  beforeAll(async () => {
    space = await createSpace({ cwd: root, onEvent: (event) => events.push(event) });
    const build = await space.build();
    expect(build.errors).toEqual([]);
    expectNoSecret(build);
  });
  afterAll(async () => {
    await space.close();
  });
  afterEach(async () => {
    // The healthy run after each case: both servers answer, and nothing of the case leaked into an event.
    const healthy = await space.run(
      "import { echo } from '@capabilities/mcp-leaky';\nimport * as web from '@capabilities/mcp-leaky-web';\nexport default [await echo({ text: 'ok' }), await web.echo({ text: 'web ok' })];",
    );
    expect(healthy).toMatchObject({ success: true, result: ['ok', 'web ok'] });
    expectNoSecret(events);
    events.length = 0;
  });

  /** Runs a program that calls one tool, catches its error and returns all of it (message, code, details). */
  async function failureOf(
    module: string,
    call: string,
  ): Promise<{ run: RunResult; error: { message: string; code: string; details?: unknown } }> {
    const run = await space.run(
      [
        `import * as tools from '@capabilities/${module}';`,
        'let caught: unknown;',
        `try { await tools.${call}; } catch (error) {`,
        '  const { message, code, details } = error as { message: string; code: string; details?: unknown };',
        '  console.log(message);',
        '  console.error(JSON.stringify(details));',
        '  caught = { message, code, details };',
        '}',
        'export default caught;',
      ].join('\n'),
    );
    expect(run.success, JSON.stringify(run.error)).toBe(true);
    expectNoSecret(run);
    return { run, error: run.result as { message: string; code: string; details?: unknown } };
  }

  it('cuts env and args out of a JSON-RPC error (message and data)', async () => {
    const { error } = await failureOf('mcp-leaky', 'leakInRpcError({})');
    expect(error.code).toBe('TOOL_FAILED');
    // The value of --api-key and the credential-like positional argument are secrets; the state dir is a path, shown.
    expect(error.message).toContain(
      `upstream refused the request made with LEAKY_TOKEN=[REDACTED: env LEAKY_TOKEN] LEAKY_PIN=[REDACTED: env LEAKY_PIN] argv=--state-dir=${stateDir} --api-key=[REDACTED: arg --api-key] [REDACTED: credential-like argument]`,
    );
    expect(JSON.stringify(error.details)).toContain('[REDACTED: env LEAKY_TOKEN]');
  });

  it('cuts env and args out of an isError result, in every content block', async () => {
    const { error } = await failureOf('mcp-leaky', 'leakInErrorResult({})');
    expect(error.code).toBe('TOOL_ERROR_RESULT');
    expect(error.message).toContain('authentication failed for LEAKY_TOKEN=[REDACTED: env LEAKY_TOKEN]');
    expect(JSON.stringify(error.details)).toContain('{\\"sent\\":');
  });

  it("cuts header values and the URL query out of an HTTP server's errors", async () => {
    const rpc = await failureOf('mcp-leaky-web', 'leakInRpcError({})');
    expect(rpc.error.message).toContain(WEB_SEEN);
    const result = await failureOf('mcp-leaky-web', 'leakInErrorResult({})');
    expect(result.error.code).toBe('TOOL_ERROR_RESULT');
    expect(result.error.message).toContain(`authentication failed for ${WEB_SEEN}`);
  });

  it('gives a short reason for a server that crashed printing its secrets on stderr', async () => {
    const { error } = await failureOf('mcp-leaky', 'crash({})');
    expect(error.code).toBe('SERVER_UNAVAILABLE');
    expect(error.message).toBe(
      'MCP server "leaky" exited (exit code 1) during the call to tool "crash"; it will be restarted on the next call; see the host log for its stderr',
    );
    expect(error.details).toEqual({ server: 'leaky', tool: 'crash', exit: 'exit code 1' });
  });

  it('reports an uncaught secret-bearing failure without the secret', async () => {
    const run = await space.run("import { leakInRpcError } from '@capabilities/mcp-leaky';\nawait leakInRpcError({});");
    expect(run).toMatchObject({ success: false, error: { code: 'TOOL_FAILED' } });
    expect(run.error?.message).toContain('[REDACTED: env LEAKY_TOKEN]');
    expectNoSecret(run);
  });

  it('says why a restart failed without the command line or the stderr that holds the secrets', async () => {
    try {
      const run = await space.run(
        [
          "import { armFailStart, crash, echo } from '@capabilities/mcp-leaky';",
          'await armFailStart({});',
          'try { await crash({}); } catch {}',
          'let caught: unknown;',
          "try { await echo({ text: 'x' }); } catch (error) {",
          '  const { message, code, details } = error as { message: string; code: string; details?: unknown };',
          '  caught = { message, code, details };',
          '}',
          'export default caught;',
        ].join('\n'),
      );
      expect(run.success, JSON.stringify(run.error)).toBe(true);
      expectNoSecret(run);
      expect(run.result).toEqual({
        code: 'SERVER_UNAVAILABLE',
        message: `cannot call tool "echo": MCP server "leaky": failed to start "${command}": it exited (exit code 3) before completing the MCP handshake; see the host log for its stderr`,
        details: { server: 'leaky', tool: 'echo', connectCode: 'MCP_CONNECT_FAILED', exit: 'exit code 3' },
      });
    } finally {
      await rm(path.join(stateDir, 'fail-next-start'), { force: true });
    }
  });

  it('says why a restart could not spawn without the arguments it was given', async () => {
    const moved = `${command}.moved`;
    try {
      await space.run("import { crash } from '@capabilities/mcp-leaky';\ntry { await crash({}); } catch {}");
      await rename(command, moved);
      const run = await space.run("import { echo } from '@capabilities/mcp-leaky';\nawait echo({ text: 'x' });");
      expectNoSecret(run);
      expect(run.error).toMatchObject({
        code: 'SERVER_UNAVAILABLE',
        message: `cannot call tool "echo": MCP server "leaky": failed to start "${command}": spawn ${command} ENOENT`,
      });
    } finally {
      await rename(moved, command).catch(() => undefined);
    }
  });
});

describe('secrets: the MCP pool keeps stderr in a bounded, redacted host log', () => {
  it('logs what a crashing server printed, with its secrets cut out', async () => {
    const logged: string[] = [];
    const config = {
      command: process.execPath,
      args: [FIXTURE, `--api-key=${SECRETS.apiKeyArg}`, SECRETS.positionalArg],
      env: { LEAKY_TOKEN: SECRETS.env, LEAKY_PIN: SECRETS.shortEnv },
    };
    const discovery = await connectMcpServer('leaky', config);
    const capability = capabilityFromTools('mcp-leaky', 'leaky', await listAllTools(discovery.client));
    await discovery.close();
    const backend = createMcpBackend({ servers: { 'mcp-leaky': { name: 'leaky', config } }, log: (entry) => logged.push(entry) });
    const call = (name: string, args: Record<string, unknown>) => backend.call(callOf(capability, name, args));
    try {
      await expect(call('crash', {})).rejects.toMatchObject({ code: 'SERVER_UNAVAILABLE' });
      expect(logged).toHaveLength(1);
      expect(logged[0]).toContain('MCP server "leaky" exited (exit code 1); stderr:');
      expect(logged[0]).toContain(
        'panic: lost connection while using LEAKY_TOKEN=[REDACTED: env LEAKY_TOKEN] LEAKY_PIN=[REDACTED: env LEAKY_PIN]',
      );
      expectNoSecret(logged);
      expect(backend.hostLog()).toEqual(logged);
      await expect(call('echo', { text: 'healthy' })).resolves.toBe('healthy');
    } finally {
      await backend.close();
    }
  });
});

// Each case starts the CLI twice (the case and the healthy run after it), on machines that may be busy.
describe('secrets: agent-spaces run --json', { timeout: 180_000 }, () => {
  const cli = (args: string[]) =>
    execa(process.execPath, [BIN, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: SECRETS.model },
      extendEnv: false,
      reject: false,
      timeout: 90_000,
      stdin: 'ignore',
    });

  async function runProgram(code: string, flags: string[] = ['--json']) {
    const file = path.join(root, `program-${Math.random().toString(36).slice(2)}.ts`);
    await writeFile(file, code);
    const result = await cli(['run', file, ...flags]);
    expectNoSecret(result.stdout);
    expectNoSecret(result.stderr);
    return result;
  }

  afterEach(async () => {
    const healthy = await runProgram("import { echo } from '@capabilities/mcp-leaky';\nexport default await echo({ text: 'ok' });");
    expect(healthy.exitCode, healthy.stderr).toBe(0);
    expect(JSON.parse(healthy.stdout)).toMatchObject({ success: true, result: 'ok' });
  });

  it('prints no secret a program returns or logs, from a result or from an error', async () => {
    const result = await runProgram(
      [
        "import { leakInResult, leakInRpcError } from '@capabilities/mcp-leaky';",
        "import * as web from '@capabilities/mcp-leaky-web';",
        'const plain = await leakInResult({});',
        'const fromWeb = await web.leakInResult({});',
        'console.log(plain, fromWeb);',
        'let failure: unknown;',
        'try { await leakInRpcError({}); } catch (error) { failure = error; }',
        'export default { plain, fromWeb, failure: String(failure) };',
      ].join('\n'),
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as RunResult & { result: { plain: string; fromWeb: string } };
    expect(run.success).toBe(true);
    expect(run.result.plain).toContain('configured with LEAKY_TOKEN=[REDACTED: env LEAKY_TOKEN]');
    expect(run.result.fromWeb).toBe(`configured with ${WEB_SEEN}`);
    expect(run.logs[0]?.message).toContain('[REDACTED: env LEAKY_TOKEN]');
  });

  it('prints no secret in the human-readable output of a failed run either', async () => {
    const result = await runProgram("import { leakInErrorResult } from '@capabilities/mcp-leaky';\nawait leakInErrorResult({});", []);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('TOOL_ERROR_RESULT');
    expect(result.stderr).toContain('[REDACTED: env LEAKY_TOKEN]');
  });
});

describe('secrets: building a space whose server URL carries credentials', { timeout: 120_000 }, () => {
  it("reports the failed source without the URL's user, password or query", async () => {
    const locked = await makeTempDir('secrets-locked');
    const url = new URL(httpUrl);
    await writeFile(
      path.join(locked, 'agent-spaces.config.json'),
      JSON.stringify({
        capabilities: [],
        mcpServers: { locked: { url: `http://alice:${SECRETS.userinfo}@${url.host}/mcp?key=${SECRETS.query}` } },
      }),
    );
    const result = await execa(process.execPath, [BIN, 'capabilities', 'build', '--json'], {
      cwd: locked,
      env: { PATH: process.env.PATH ?? '' },
      extendEnv: false,
      reject: false,
      timeout: 90_000,
    });
    expectNoSecret(result.stdout);
    expectNoSecret(result.stderr);
    expect(result.stdout).toContain('could not connect to http://127.0.0.1');
    expect(result.stdout).not.toContain('alice');
  });
});

describe('secrets: execute_code of serve, driven by an MCP client', { timeout: 120_000 }, () => {
  let space: Space;
  let client: Client;
  beforeAll(async () => {
    const router = createRunRouter();
    space = await createSpace({ cwd: root, onEvent: router.onEvent, approvalHandler: router.approve });
    expect((await space.build()).errors).toEqual([]);
    const server = await createAgentSpacesMcpServer(space, router, { name: 'agent-spaces', version: '0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'hostile-client', version: '1' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
    await space.close();
  });

  it('hands the client no secret a program returns, logs or fails with', async () => {
    const code = [
      "import { leakInResult, leakInRpcError } from '@capabilities/mcp-leaky';",
      'const plain = await leakInResult({});',
      'console.log(plain);',
      'let failure = "";',
      'try { await leakInRpcError({}); } catch (error) { failure = String(error); }',
      'export default { plain, failure };',
    ].join('\n');
    // Log lines streamed as progress pass the same redaction as the result.
    const progress: string[] = [];
    const reply = await client.callTool({ name: 'execute_code', arguments: { code } }, undefined, {
      onprogress: (notification) => progress.push(notification.message ?? ''),
    });
    expectNoSecret(reply);
    expectNoSecret(progress);
    expect(progress.find((message) => message.startsWith('log: '))).toContain('[REDACTED: env LEAKY_TOKEN]');
    expect(reply.structuredContent).toMatchObject({
      success: true,
      result: { plain: expect.stringContaining('[REDACTED: env LEAKY_TOKEN]') },
    });
    const healthy = await client.callTool({
      name: 'execute_code',
      arguments: { code: "import { echo } from '@capabilities/mcp-leaky';\nexport default await echo({ text: 'ok' });" },
    });
    expect(healthy.structuredContent).toMatchObject({ success: true, result: 'ok' });
  });
});
