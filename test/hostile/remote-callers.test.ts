/**
 * Remote callers of `serve --http`: a real server (serveSpace, and the HTTP front serveMcp it shares
 * with agents) driven with raw HTTP requests, raw sockets and the MCP SDK client. Every case is followed
 * by a healthy request to the same server.
 */
import { writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/server';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSpace, type SpaceOptions } from '../../space/index.js';
import { isLoopbackHostname } from '../../server/loopback.js';
import { ServeError } from '../../server/serve-error.js';
import { resolveHttpBind, serveMcp, type RunningMcpServer } from '../../server/serve-mcp.js';
import { serveSpace, type RunningServer } from '../../server/serve.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';
import { sandboxWorkerPids } from '../support/sandbox-worker-pids.js';

const TOKEN = 'remote-secret';
const PROTOCOL = '2025-06-18';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
});
const PING = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
const ACCEPT = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One raw request, so the test sets every header (fetch forbids Host) and sees every status. */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'POST', headers: { ...ACCEPT, ...options.headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

async function initialize(url: string, headers: Record<string, string> = {}): Promise<string> {
  const reply = await send(url, { headers, body: INITIALIZE });
  expect(reply.status).toBe(200);
  const session = reply.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error(`no session id in ${JSON.stringify(reply)}`);
  return session;
}

function inSession(session: string, headers: Record<string, string> = {}): Record<string, string> {
  return { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL, ...headers };
}

function ping(url: string, session: string, headers: Record<string, string> = {}): Promise<Reply> {
  return send(url, { headers: inSession(session, headers), body: PING });
}

/** The JSON-RPC message of a reply, whether it came as JSON or as one server-sent event. */
function messageOf(reply: Reply): { result?: Record<string, unknown>; error?: { code: number; message: string } } {
  const data = reply.body.startsWith('{') ? reply.body : /^data: (.*)$/m.exec(reply.body)?.[1];
  if (data === undefined) throw new Error(`no JSON-RPC message in ${reply.body}`);
  return JSON.parse(data) as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

/**
 * A raw TCP exchange for what an HTTP client library would not send: `start` writes to the socket; the
 * promise resolves with everything the server sent once it closes the connection.
 */
function exchange(port: number, start: (socket: Socket) => void): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined); // writes after the server closed: the answer is what counts
    socket.on('close', () => resolve(received));
    socket.on('connect', () => start(socket));
  });
}

function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

/** A full MCP client: connect, run a program, end the session. */
async function expectHealthy(url: string, token?: string): Promise<void> {
  const client = new Client({ name: 'healthy', version: '1' });
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : undefined,
  );
  await client.connect(transport);
  const run = await client.callTool({ name: 'execute_code', arguments: { code: 'export default 6 * 7;' } });
  expect(run.structuredContent).toMatchObject({ success: true, result: 42 });
  await transport.terminateSession();
  await client.close();
}

/** Log lines as they come, and a way to wait for one. */
function collectLog(): { log: (line: string) => void; lines: string[]; waitFor: (pattern: RegExp) => Promise<string> } {
  const lines: string[] = [];
  const waiting: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  return {
    lines,
    log(line) {
      lines.push(line);
      for (const waiter of waiting.filter((entry) => entry.pattern.test(line))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    },
    waitFor(pattern) {
      const seen = lines.find((line) => pattern.test(line));
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => waiting.push({ pattern, resolve }));
    },
  };
}

let root: string;
let inProcessRoot: string;
let threadRoot: string;

beforeAll(async () => {
  root = await makeTempDir('remote-callers');
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
  inProcessRoot = await makeTempDir('remote-callers-in-process');
  await writeFile(
    path.join(inProcessRoot, 'agent-spaces.config.json'),
    JSON.stringify({ capabilities: [], sandbox: { isolation: 'in-process' } }),
  );
  threadRoot = await makeTempDir('remote-callers-thread');
  await writeFile(
    path.join(threadRoot, 'agent-spaces.config.json'),
    JSON.stringify({ capabilities: [], sandbox: { isolation: 'thread' } }),
  );
});

describe('binding without a token', () => {
  let main: RunningServer;
  beforeAll(async () => {
    main = await serveSpace({ cwd: root, http: { port: 0 } });
  });
  afterAll(async () => {
    await main.close();
  });
  afterEach(async () => {
    await expectHealthy(main.url ?? '');
  });

  it.each([
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '0x7f.1',
    '0x7f000001',
    '0177.0.0.1',
    '2130706433',
    '127.42.0.7',
    'localhost',
    'LOCALHOST',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '0000::0001',
    '::ffff:127.0.0.1',
  ])('serves on loopback spelled %s', async (host) => {
    const running = await serveSpace({ cwd: root, http: { port: 0, host } });
    try {
      const url = new URL(running.url ?? '');
      expect(isLoopbackHostname(url.hostname)).toBe(true);
      const session = await initialize(url.href);
      expect((await ping(url.href, session)).status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it.each([
    '0.0.0.0',
    '0',
    '::',
    '[::]',
    '',
    '0:0:0:0:0:0:0:0',
    '128.0.0.1',
    '0x80.1',
    '10.1',
    '192.168.1.20',
    '::ffff:10.0.0.1',
    '::ffff:0.0.0.0',
    '::127.0.0.1',
    '::2',
  ])('refuses to start on %j, before opening the space', async (host) => {
    const opened: SpaceOptions[] = [];
    const openSpace = (options: SpaceOptions) => {
      opened.push(options);
      return createSpace(options);
    };
    const error: unknown = await serveSpace({ cwd: root, openSpace, http: { port: 0, host } }).then(
      async (running) => {
        await running.close();
        return undefined;
      },
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ServeError);
    expect(error).toMatchObject({
      code: 'SERVE_UNSAFE_BIND',
      message: expect.stringMatching(/without a token: it is not a loopback address.*--token.*bind to loopback/),
    });
    expect(opened).toEqual([]);
  });

  it('accepts a non-loopback address once there is a token (checked without binding it)', async () => {
    await expect(resolveHttpBind({ host: '0.0.0.0', token: TOKEN })).resolves.toEqual({ address: '0.0.0.0', loopback: false });
    await expect(resolveHttpBind({ host: '0.0.0.0' })).rejects.toMatchObject({ code: 'SERVE_UNSAFE_BIND' });
  });

  it('the CLI exits with a usage error that says to pass --token or bind to loopback', async () => {
    const bin = path.join(REPO, 'bin/agent-spaces.js');
    const cli = await execa(process.execPath, [bin, 'serve', '--http', '0', '--host', '0.0.0.0', '--cwd', root], {
      reject: false,
      timeout: 60_000,
      env: { AGENT_SPACES_SERVE_TOKEN: '' },
    });
    expect(cli.stderr).toMatch(/refusing to serve on "0\.0\.0\.0" without a token.*--token <secret>.*--host 127\.0\.0\.1/);
    expect(cli.exitCode).toBe(2);
  });
});

describe('in-process isolation and remote callers', () => {
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it('refuses an explicit in-process or thread isolation over HTTP (both share the host process)', async () => {
    for (const isolation of ['in-process', 'thread'] as const) {
      await expect(serveSpace({ cwd: root, isolation, http: { port: 0 } })).rejects.toMatchObject({
        name: 'ServeError',
        code: 'SERVE_IN_PROCESS_REFUSED',
        message: expect.stringMatching(new RegExp(`refusing ${isolation} isolation.*worker isolation`)),
      });
    }
    running = await serveSpace({ cwd: root, http: { port: 0 } });
    await expectHealthy(running.url ?? '');
  });

  it('runs code of a remote caller in a sandbox worker process even when the config says in-process', async () => {
    const log = collectLog();
    const before = await sandboxWorkerPids();
    running = await serveSpace({ cwd: inProcessRoot, http: { port: 0 }, log: log.log });
    expect(log.lines).toContainEqual(expect.stringMatching(/sandbox\.isolation "in-process" of the config is ignored over HTTP/));
    await expectHealthy(running.url ?? '');
    const started = (await sandboxWorkerPids()).filter((pid) => !before.includes(pid));
    expect(started.length).toBeGreaterThan(0);
  });

  it('runs code of a remote caller in a sandbox worker process when the config says thread', async () => {
    const log = collectLog();
    const before = await sandboxWorkerPids();
    running = await serveSpace({ cwd: threadRoot, http: { port: 0 }, log: log.log });
    expect(log.lines).toContainEqual(expect.stringMatching(/sandbox\.isolation "thread" of the config is ignored over HTTP/));
    await expectHealthy(running.url ?? '');
    const started = (await sandboxWorkerPids()).filter((pid) => !before.includes(pid));
    expect(started.length).toBeGreaterThan(0);
  });
});

describe('requests a web page could send (server on loopback, no token)', () => {
  let running: RunningServer;
  let url: string;
  let port: number;
  beforeAll(async () => {
    running = await serveSpace({ cwd: root, http: { port: 0, maxBodyBytes: 16 * 1024 } });
    url = running.url ?? '';
    port = Number(new URL(url).port);
  });
  afterAll(async () => {
    await running.close();
  });
  afterEach(async () => {
    await expectHealthy(url);
  });

  it('refuses a Host that is not this machine (DNS rebinding), however it is spelled', async () => {
    const hosts = [
      `attacker.example:${port}`,
      `localhost.attacker.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `app.localhost:${port}`,
      `0.0.0.0:${port}`,
      `[::]:${port}`,
      `evil.example@127.0.0.1:${port}`,
      `127.0.0.1:${port}/x`,
      `128.1:${port}`,
      `[::ffff:a00:1]:${port}`,
    ];
    for (const host of hosts) {
      const reply = await send(url, { headers: { host }, body: INITIALIZE });
      expect({ host, status: reply.status }).toEqual({ host, status: 403 });
      expect(messageOf(reply).error?.message).toMatch(/^Host ".*" refused: this server is bound to loopback/);
    }
  });

  it('accepts every spelling of this machine in Host', async () => {
    const hosts = [
      `127.0.0.1:${port}`,
      '127.0.0.1',
      `127.1:${port}`,
      `0x7f.1:${port}`,
      `2130706433:${port}`,
      `127.9.9.9:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
      `[::ffff:7f00:1]:${port}`,
    ];
    for (const host of hosts) {
      const reply = await send(url, { headers: { host }, body: INITIALIZE });
      expect({ host, status: reply.status }).toEqual({ host, status: 200 });
    }
    // Non-canonical IPv6 spellings pass the Host check; the SDK's HTTP adapter behind it then refuses
    // any Host its URL parser would rewrite (400, not the 403 of the check).
    for (const host of [`[0:0:0:0:0:0:0:1]:${port}`, `[::ffff:127.0.0.1]:${port}`]) {
      const reply = await send(url, { headers: { host }, body: INITIALIZE });
      expect({ host, status: reply.status }).toEqual({ host, status: 400 });
    }
  });

  it('refuses a request without a Host header', async () => {
    const raw = await exchange(port, (socket) =>
      socket.write(
        `POST /mcp HTTP/1.0\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: ${INITIALIZE.length}\r\n\r\n${INITIALIZE}`,
      ),
    );
    expect(statusOf(raw)).toBe(403);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { message: expect.stringMatching(/^Host "" refused/) },
    });
  });

  it('refuses Origin null and every origin but its own', async () => {
    const origins = [
      'null',
      'http://attacker.example',
      `http://localhost:${port}`,
      `http://127.0.0.1:${port + 1}`,
      `http://127.0.0.1:${port}.attacker.example`,
      'file://',
      `http://127.0.0.1:${port}/page`,
      'chrome-extension://abc',
    ];
    for (const origin of origins) {
      const reply = await send(url, { headers: { host: `127.0.0.1:${port}`, origin }, body: INITIALIZE });
      expect({ origin, status: reply.status }).toEqual({ origin, status: 403 });
      expect(messageOf(reply).error?.message).toMatch(/^Origin ".*" refused/);
    }
    const same = await send(url, { headers: { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }, body: INITIALIZE });
    expect(same.status).toBe(200);
  });

  it('refuses Origin null inside a session too', async () => {
    const session = await initialize(url);
    expect((await ping(url, session, { origin: 'null' })).status).toBe(403);
    expect((await ping(url, session)).status).toBe(200);
  });

  it('refuses a declared oversized body before reading it', async () => {
    const raw = await exchange(port, (socket) =>
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: ${64 * 1024 * 1024}\r\n\r\n`,
      ),
    );
    expect(statusOf(raw)).toBe(413);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({
      error: { message: expect.stringMatching(/larger than 16384 bytes/) },
    });
  });

  it('refuses a chunked body once it passes the cap', async () => {
    const chunk = 'x'.repeat(16 * 1024 + 1);
    const raw = await exchange(port, (socket) =>
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      ),
    );
    expect(statusOf(raw)).toBe(413);
  });

  it('refuses request headers past the cap', async () => {
    const raw = await exchange(port, (socket) =>
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nx-filler: ${'a'.repeat(32 * 1024)}\r\ncontent-length: 0\r\n\r\n`),
    );
    expect(statusOf(raw)).toBe(431);
  });
});

describe('slow requests', () => {
  let running: RunningServer;
  let port: number;
  beforeAll(async () => {
    running = await serveSpace({ cwd: root, http: { port: 0, requestTimeoutMs: 500 } });
    port = Number(new URL(running.url ?? '').port);
  });
  afterAll(async () => {
    await running.close();
  });
  afterEach(async () => {
    await expectHealthy(running.url ?? '');
  });

  /** Writes `head`, then one more byte of `drip` every 20 ms: activity never stops, the request never ends. */
  function trickle(head: string, drip: string): Promise<string> {
    return exchange(port, (socket) => {
      socket.write(head);
      const timer = setInterval(() => socket.write(drip), 20);
      socket.once('close', () => clearInterval(timer));
    });
  }

  it('ends a request whose body trickles in (408, connection closed)', async () => {
    const raw = await trickle(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100000\r\n\r\n{`,
      ' ',
    );
    expect(statusOf(raw)).toBe(408);
  });

  it('ends a request whose headers trickle in', async () => {
    const raw = await trickle(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, 'x');
    expect(statusOf(raw)).toBe(408);
  });

  it('ends a trickling body inside a session, and frees its slot in the session', async () => {
    const session = await initialize(running.url ?? '');
    const raw = await trickle(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nmcp-session-id: ${session}\r\nmcp-protocol-version: ${PROTOCOL}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100000\r\n\r\n{`,
      ' ',
    );
    expect(statusOf(raw)).toBe(408);
    expect((await ping(running.url ?? '', session)).status).toBe(200);
  });
});

describe('sessions of serve', () => {
  it('evicts the longest-idle session at the cap, and refuses (503) when every session is busy', async () => {
    const running = await serveSpace({ cwd: root, http: { port: 0, token: TOKEN, maxSessions: 3 } });
    const url = running.url ?? '';
    const auth = { authorization: `Bearer ${TOKEN}` };
    const streams: { close(): void }[] = [];
    try {
      const first = await initialize(url, auth);
      const second = await initialize(url, auth);
      const third = await initialize(url, auth);
      expect((await ping(url, first, auth)).status).toBe(200); // `second` is now the longest idle
      const fourth = await initialize(url, auth);
      expect((await ping(url, second, auth)).status).toBe(404);
      expect(messageOf(await ping(url, second, auth)).error?.message).toMatch(/session not found: .*start a new one with initialize/);
      for (const session of [first, third, fourth]) expect((await ping(url, session, auth)).status).toBe(200);

      // A standalone SSE stream is an open request: with one on every session, none may be evicted.
      for (const session of [first, third, fourth]) streams.push(await openStream(url, inSession(session, auth)));
      const refused = await send(url, { headers: auth, body: INITIALIZE });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(messageOf(refused).error?.message).toMatch(/too many sessions: all 3 are busy/);
      expect((await ping(url, first, auth)).status).toBe(200); // the busy sessions are not affected

      // Ending a session (DELETE) frees its place at once.
      expect((await send(url, { method: 'DELETE', headers: inSession(third, auth) })).status).toBe(200);
      expect((await ping(url, third, auth)).status).toBe(404);
      const fifth = await initialize(url, auth);
      expect((await ping(url, fifth, auth)).status).toBe(200);
      for (const session of [first, fourth, fifth])
        expect((await send(url, { method: 'DELETE', headers: inSession(session, auth) })).status).toBe(200);
      await expectHealthy(url, TOKEN);
    } finally {
      for (const stream of streams) stream.close();
      await running.close();
    }
  });

  it('closes a session idle for longer than sessionIdleMs', async () => {
    const log = collectLog();
    const running = await serveSpace({ cwd: root, http: { port: 0, sessionIdleMs: 1000 }, log: log.log });
    const url = running.url ?? '';
    try {
      const session = await initialize(url);
      await log.waitFor(new RegExp(`MCP session ${session} closed: idle for more than 1000 ms`));
      expect((await ping(url, session)).status).toBe(404);
      const next = await initialize(url);
      expect((await ping(url, next)).status).toBe(200);
    } finally {
      await running.close();
    }
  });

  it('still refuses an Origin null with the right token', async () => {
    const running = await serveSpace({ cwd: root, http: { port: 0, token: TOKEN } });
    try {
      const reply = await send(running.url ?? '', { headers: { authorization: `Bearer ${TOKEN}`, origin: 'null' }, body: INITIALIZE });
      expect(reply.status).toBe(403);
      await expectHealthy(running.url ?? '', TOKEN);
    } finally {
      await running.close();
    }
  });
});

/** Opens a standalone SSE stream (GET) and resolves once the server answered its headers. */
function openStream(url: string, headers: Record<string, string>): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: 'GET', headers: { accept: 'text/event-stream', ...headers } }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`GET stream answered ${response.statusCode}`));
      response.resume();
      resolve({ close: () => request.destroy() });
    });
    request.on('error', () => undefined);
    request.end();
  });
}

/**
 * serveMcp with real McpServers whose life the test sees: each session's server counts as live from
 * `create` until it is closed, and its `hold` tool waits until the test releases it.
 */
function countingServers() {
  let live = 0;
  const closedWaiters: (() => void)[] = [];
  const entered: (() => void)[] = [];
  let entries = 0;
  let release!: () => void;
  let released = new Promise<void>((resolve) => (release = resolve));
  return {
    live: () => live,
    create() {
      const server = new McpServer({ name: 'counted', version: '1' });
      server.registerTool('hold', { inputSchema: { label: z.string() } }, async ({ label }) => {
        entries++;
        entered.splice(0).forEach((wake) => wake());
        await released;
        return { content: [{ type: 'text', text: `released ${label}` }] };
      });
      live++;
      server.server.onclose = () => {
        live--;
        closedWaiters.splice(0).forEach((wake) => wake());
      };
      return server;
    },
    /** Resolves once `count` hold calls have started in total. */
    async entered(count: number) {
      while (entries < count) await new Promise<void>((resolve) => entered.push(resolve));
    },
    /** Resolves once `live` is at most `count`. */
    async liveAtMost(count: number) {
      while (live > count) await new Promise<void>((resolve) => closedWaiters.push(resolve));
    },
    release() {
      release();
      released = new Promise<void>((resolve) => (release = resolve));
    },
  };
}

let nextId = 100;

function holdCall(url: string, session: string, label: string): Promise<Reply> {
  return send(url, {
    headers: inSession(session),
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'hold', arguments: { label } } }),
  });
}

describe('what a session holds (serveMcp, the HTTP front of serve and of agents)', () => {
  let servers: ReturnType<typeof countingServers>;
  let running: RunningMcpServer | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
    await servers.liveAtMost(0);
  });

  it('closes the MCP server of an idle session, and never a session with a request open', async () => {
    servers = countingServers();
    const log = collectLog();
    running = await serveMcp(() => servers.create(), { http: { port: 0, sessionIdleMs: 1000 }, log: log.log });
    const url = running.url ?? '';
    const busy = await initialize(url);
    const call = holdCall(url, busy, 'busy');
    await servers.entered(1);
    const idle = await initialize(url);
    expect(servers.live()).toBe(2);
    // The idle session goes (the busy one, idle at least as long by its last request, stays).
    await log.waitFor(new RegExp(`MCP session ${idle} closed: idle`));
    await servers.liveAtMost(1);
    expect(log.lines.some((line) => line.includes(busy))).toBe(false);
    servers.release();
    const reply = await call;
    expect(messageOf(reply).result).toMatchObject({ content: [{ type: 'text', text: 'released busy' }] });
    // Then it too is idle, and its server is closed as well.
    await log.waitFor(new RegExp(`MCP session ${busy} closed: idle`));
    await servers.liveAtMost(0);
    expect((await ping(url, busy)).status).toBe(404);
    expect((await ping(url, await initialize(url))).status).toBe(200);
  });

  it('closes the MCP server of the session evicted at the cap', async () => {
    servers = countingServers();
    running = await serveMcp(() => servers.create(), { http: { port: 0, maxSessions: 2 } });
    const url = running.url ?? '';
    const first = await initialize(url);
    await initialize(url);
    expect(servers.live()).toBe(2);
    const third = await initialize(url);
    await servers.liveAtMost(2);
    expect((await ping(url, first)).status).toBe(404);
    expect((await ping(url, third)).status).toBe(200);
  });

  it('refuses (429) more concurrent requests in one session than the cap, without touching other sessions', async () => {
    servers = countingServers();
    running = await serveMcp(() => servers.create(), { http: { port: 0, maxRequestsPerSession: 2 } });
    const url = running.url ?? '';
    const greedy = await initialize(url);
    const other = await initialize(url);
    const calls = [holdCall(url, greedy, 'a'), holdCall(url, greedy, 'b')];
    await servers.entered(2);
    const refused = await ping(url, greedy);
    expect(refused.status).toBe(429);
    expect(messageOf(refused).error?.message).toMatch(/too many requests open in this session \(at most 2\)/);
    expect((await ping(url, other)).status).toBe(200);
    servers.release();
    for (const reply of await Promise.all(calls)) expect(reply.status).toBe(200);
    expect((await ping(url, greedy)).status).toBe(200);
  });

  it('lets a long call outlive the request timeout while a slow body is cut off', async () => {
    servers = countingServers();
    running = await serveMcp(() => servers.create(), { http: { port: 0, requestTimeoutMs: 300 } });
    const url = running.url ?? '';
    const port = Number(new URL(url).port);
    const session = await initialize(url);
    const call = holdCall(url, session, 'long');
    await servers.entered(1);
    const raw = await exchange(port, (socket) => {
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`);
    });
    expect(statusOf(raw)).toBe(408);
    servers.release();
    expect(messageOf(await call).result).toMatchObject({ content: [{ type: 'text', text: 'released long' }] });
  });
});
