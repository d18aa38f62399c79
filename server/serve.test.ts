// The HTTP front door of `serveSpace`: what reaches the MCP transport and what is turned away first.
import { request as httpRequest } from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp-dir.js';
import { serveSpace, type RunningServer } from './serve.js';

const TOKEN = 'let-me-in';

interface Reply {
  status: number;
  body: string;
  session: string | undefined;
}

/** A raw request, so the test controls every header (fetch forbids setting Host). */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'POST', headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          session: response.headers['mcp-session-id'] as string | undefined,
        }),
      );
    });
    // The server may answer (and close) before a large body is fully written.
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    request.end(options.body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
});
const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` };

describe('serveSpace over HTTP', () => {
  let running: RunningServer;
  let url: string;

  beforeAll(async () => {
    const root = await makeTempDir('serve-guard');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    running = await serveSpace({ cwd: root, http: { port: 0, token: TOKEN } });
    url = running.url ?? '';
  });

  afterAll(async () => {
    await running.close();
  });

  it('accepts an initialize request with the token', async () => {
    const reply = await send(url, { headers: mcpHeaders, body: initialize });
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('agent-spaces');
  });

  it('refuses a wrong token of any length', async () => {
    for (const token of ['let-me-i', 'let-me-ix', 'x'.repeat(500)]) {
      const reply = await send(url, { headers: { ...mcpHeaders, authorization: `Bearer ${token}` }, body: initialize });
      expect(reply.status).toBe(401);
    }
  });

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const reply = await send(url, { headers: mcpHeaders, body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { code: -32700, message: expect.stringMatching(/not valid JSON/) } });
  });

  it('refuses a body larger than the cap (413, the answer not lost to a reset: test/hostile/http-front.test.ts)', async () => {
    const huge = Buffer.alloc(8 * 1024 * 1024, 0x20);
    const reply = await send(url, { headers: mcpHeaders, body: huge });
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { message: expect.stringMatching(/larger than .* bytes/) } });
  });

  it('refuses requests whose Host is not this machine (DNS rebinding)', async () => {
    const port = new URL(url).port;
    const reply = await send(url, { headers: { ...mcpHeaders, host: `attacker.example:${port}` }, body: initialize });
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body)).toMatchObject({ error: { message: expect.stringMatching(/Host "attacker\.example/) } });
    const local = await send(url, { headers: { ...mcpHeaders, host: `localhost:${port}` }, body: initialize });
    expect(local.status).toBe(200);
  });

  it('refuses requests from a web page of another origin', async () => {
    const reply = await send(url, { headers: { ...mcpHeaders, origin: 'https://attacker.example' }, body: initialize });
    expect(reply.status).toBe(403);
  });
});

describe('serveSpace sessions', () => {
  it('closes a session its client abandoned, after the idle time', async () => {
    const root = await makeTempDir('serve-idle');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    let closed: (line: string) => void = () => undefined;
    const closedLine = new Promise<string>((resolve) => (closed = resolve));
    const log = (line: string): void => {
      if (/MCP session .* closed: idle/.test(line)) closed(line);
    };
    // The idle time only has to exceed the gap between two requests sent back to back.
    const running = await serveSpace({ cwd: root, http: { port: 0, token: TOKEN, sessionIdleMs: 1000 }, log });
    try {
      const url = running.url ?? '';
      const opened = await send(url, { headers: mcpHeaders, body: initialize });
      expect(opened.session).toMatch(/^[0-9a-f-]{36}$/);
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' });
      const headers = { ...mcpHeaders, 'mcp-session-id': opened.session ?? '', 'mcp-protocol-version': '2025-06-18' };
      expect((await send(url, { headers, body: ping })).status).toBe(200);
      expect(await closedLine).toContain(`MCP session ${opened.session ?? ''} closed: idle for more than 1000 ms`);
      const late = await send(url, { headers, body: ping });
      expect(late.status).toBe(404);
      expect(late.body).toContain('session not found');
    } finally {
      await running.close();
    }
  });
});
