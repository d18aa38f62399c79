/**
 * Remote callers of the A2A server (`agent serve --a2a`): the same front as `serve --http` — loopback
 * only without a token, Host and Origin checks against DNS rebinding and web pages, a bearer token when
 * configured, a capped body. Each case is followed by a healthy request.
 */
import { request as httpRequest } from 'node:http';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAgent } from '../../agents/load-agent.js';
import { createAgentRunner, type AgentRunner } from '../../agents/run-agent.js';
import { serveA2A, type RunningA2AServer } from '../../agents/a2a/serve-a2a.js';
import { ServeError } from '../../server/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const TOKEN = 'a2a-test-token-7f3c9e';
let runner: AgentRunner;
let open: RunningA2AServer;
let guarded: RunningA2AServer;

beforeAll(async () => {
  const dir = await makeTempDir('a2a-hostile');
  await writeFile(
    path.join(dir, 'tsagent.json'),
    JSON.stringify({
      metadata: {
        name: 'Echo Desk',
        version: '0.1.0',
        description: 'Echoes',
        skills: [{ id: 'echo', name: 'Echo', description: 'Echoes' }],
      },
    }),
  );
  runner = createAgentRunner(await loadAgent(dir), {
    outDir: path.join(dir, 'out'),
    executeTask: async (task) => ({ success: true, finalSummary: `echo: ${task}` }),
  });
  open = await serveA2A([runner], { port: 0 });
  guarded = await serveA2A([runner], { port: 0, token: TOKEN });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await runner?.close();
});
afterEach(async () => {
  const card = await send(open, { method: 'GET', path: '/.well-known/agent-card.json' });
  expect(card.status).toBe(200);
});

/** A raw HTTP request (fetch would not let a test set Host). */
function send(
  server: RunningA2AServer,
  options: { method: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  const url = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, method: options.method, path: options.path, headers: { host: url.host, ...options.headers } },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nope' } });

describe('the A2A server against remote callers', () => {
  it('refuses to start on an address that is not loopback without a token', async () => {
    await expect(serveA2A([runner], { port: 0, host: '0.0.0.0' })).rejects.toBeInstanceOf(ServeError);
  });
  it('refuses a Host that is not this machine (DNS rebinding) and foreign or null Origins', async () => {
    const attacks: Record<string, string>[] = [{ host: 'attacker.example' }, { origin: 'null' }, { origin: 'https://attacker.example' }];
    for (const headers of attacks) {
      const reply = await send(open, { method: 'POST', path: '/', headers: { 'content-type': 'application/json', ...headers }, body: rpc });
      expect(reply.status, JSON.stringify(headers)).toBe(403);
    }
    const card = await send(open, { method: 'GET', path: '/.well-known/agent-card.json', headers: { host: 'rebound.example' } });
    expect(card.status).toBe(403);
  });
  it('requires the bearer token for calls when one is set, and compares it exactly', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`]) {
      const reply = await send(guarded, {
        method: 'POST',
        path: '/',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: rpc,
      });
      expect(reply.status).toBe(401);
    }
    const ok = await send(guarded, {
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: rpc,
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ jsonrpc: '2.0', id: 1 });
  });
  it('refuses an oversized body without reading it all', async () => {
    const reply = await send(open, {
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json', 'content-length': String(64 * 1024 * 1024) },
      body: '',
    });
    expect(reply.status).toBe(413);
  });
});
