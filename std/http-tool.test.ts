import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHostAllowed } from '../core/index.js';
import { createHttpTool } from './http-tool.js';
import { callTool } from './test-support/call-tool.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';

let server: Server;
let port: number;
/** Requests whose connection the client closed (or that ended). */
const closed: string[] = [];
const received: {
  method: string;
  url: string;
  body: string;
  contentType: string | undefined;
  authorization?: string | undefined;
  cookie?: string | undefined;
}[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        body,
        contentType: request.headers['content-type'],
        authorization: request.headers.authorization,
        cookie: request.headers.cookie,
      });
      if (request.url === '/json') {
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-trace': 't-1' });
        response.end(JSON.stringify({ ok: true, echo: body === '' ? null : (JSON.parse(body) as unknown) }));
      } else if (request.url === '/big') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('x'.repeat(5000));
      } else if (request.url === '/redirect-inside') {
        response.writeHead(302, { location: '/json' });
        response.end();
      } else if (request.url === '/redirect-outside') {
        response.writeHead(302, { location: `http://localhost:${port}/json` });
        response.end();
      } else if (request.url === '/slow') {
        setTimeout(() => response.end('late'), 2000);
      } else if (request.url === '/trickle' || request.url === '/endless') {
        // A slow-loris body (one byte at a time, never ending) or a flood (64 KiB chunks, never ending).
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = request.url === '/trickle' ? 'x' : 'x'.repeat(64 * 1024);
        const timer = setInterval(() => response.write(chunk), request.url === '/trickle' ? 20 : 1);
        response.on('close', () => {
          clearInterval(timer);
          closed.push(request.url ?? '');
        });
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not here');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('std http', () => {
  it('fetches from an allowed host, parsing JSON and sending a JSON body', async () => {
    const http = createHttpTool({ allowHosts: ['127.0.0.1'] });
    const result = await callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/json`, method: 'POST', json: { n: 1 } });
    expect(result).toMatchObject({ status: 200, ok: true, json: { ok: true, echo: { n: 1 } }, headers: { 'x-trace': 't-1' } });
    expect(received.at(-1)).toMatchObject({ method: 'POST', body: '{"n":1}', contentType: 'application/json' });
    await expect(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/missing` })).resolves.toMatchObject({
      status: 404,
      ok: false,
      body: 'not here',
    });
  });

  it('refuses other hosts, naming the host and the config key, before any request', async () => {
    const http = createHttpTool({ allowHosts: ['127.0.0.1'] });
    const before = received.length;
    const error = await toolCallErrorOf(callTool(http, 'fetch', { url: `http://localhost:${port}/json` }));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toBe(
      `host "localhost:${port}" is not allowed: add it to std.http.allowHosts in the config to let code reach it (allowed: 127.0.0.1)`,
    );
    expect(received.length).toBe(before);
  });

  it('denies everything by default', async () => {
    const error = await toolCallErrorOf(callTool(createHttpTool(), 'fetch', { url: `http://127.0.0.1:${port}/json` }));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain('(no hosts are allowed now)');
    expect((await toolCallErrorOf(callTool(createHttpTool({ allowHosts: ['*'] }), 'fetch', { url: 'file:///etc/passwd' }))).code).toBe(
      'FORBIDDEN',
    );
  });

  it('follows redirects only to allowed hosts', async () => {
    const http = createHttpTool({ allowHosts: ['127.0.0.1'] });
    await expect(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/redirect-inside` })).resolves.toMatchObject({
      status: 200,
      url: `http://127.0.0.1:${port}/json`,
    });
    const error = await toolCallErrorOf(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/redirect-outside` }));
    expect(error.code).toBe('FORBIDDEN');
    expect(error.message).toContain(`host "localhost:${port}" is not allowed`);
  });

  it('carries credentials on a redirect within the origin and refuses a redirect to another origin while it has any', async () => {
    const http = createHttpTool({ allowHosts: ['127.0.0.1', 'localhost'] });
    const headers = { Authorization: 'Bearer for-127-only', Cookie: 'session=abc', 'x-keep': '1' };
    await callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/redirect-inside`, headers });
    expect(received.at(-1)).toMatchObject({ url: '/json', authorization: 'Bearer for-127-only', cookie: 'session=abc' });
    for (const credentials of [
      { Authorization: 'Bearer for-127-only' },
      { Cookie: 'session=abc' },
      { 'X-Api-Key': 'k-1' },
      { 'x-auth-token': 't-1' },
    ]) {
      const before = received.length;
      const error = await toolCallErrorOf(
        callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/redirect-outside`, headers: { ...credentials, 'x-keep': '1' } }),
      );
      const name = Object.keys(credentials)[0]?.toLowerCase();
      expect(error).toMatchObject({
        code: 'FORBIDDEN',
        details: { from: `http://127.0.0.1:${port}`, to: `http://localhost:${port}`, headers: [name] },
      });
      expect(error.message).toBe(
        `http://127.0.0.1:${port}/redirect-outside redirected to another origin (http://localhost:${port}) while the request carries credentials (header "${name}"): std http does not send credentials to another host; request http://localhost:${port}/json yourself if it should get them`,
      );
      // The first hop was made; the other origin never got a request.
      expect(received.slice(before).map((request) => request.url)).toEqual(['/redirect-outside']);
    }
    // Without credentials the redirect is followed.
    await expect(
      callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/redirect-outside`, headers: { 'x-keep': '1' } }),
    ).resolves.toMatchObject({ status: 200, url: `http://localhost:${port}/json` });
  });

  it('refuses URLs with credentials in them, without repeating the password', async () => {
    const http = createHttpTool({ allowHosts: ['127.0.0.1'] });
    const error = await toolCallErrorOf(callTool(http, 'fetch', { url: `http://user:hunter2@127.0.0.1:${port}/json` }));
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).toBe(
      `http://user:REDACTED@127.0.0.1:${port}/json has credentials in it (user:password@): send them in an authorization header instead`,
    );
  });

  it('caps the response size while it streams, and times out', async () => {
    const http = createHttpTool({ allowHosts: [`127.0.0.1:${port}`] });
    const big = await toolCallErrorOf(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/big`, maxBytes: 1000 }));
    expect(big.code).toBe('RESULT_TOO_LARGE');
    expect(big.message).toContain('larger than 1000 bytes');
    const slow = await toolCallErrorOf(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/slow`, timeoutMs: 100 }));
    expect(slow.code).toBe('TIMEOUT');
  });

  it('stops reading an endless body at maxBytes and hangs up', async () => {
    const http = createHttpTool({ allowHosts: [`127.0.0.1:${port}`] });
    const error = await toolCallErrorOf(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/endless`, maxBytes: 200_000 }));
    expect(error).toMatchObject({ code: 'RESULT_TOO_LARGE', details: { maxBytes: 200_000 } });
    await expect.poll(() => closed.includes('/endless')).toBe(true);
  });

  it('ends a call whose server trickles the body forever (slow loris) at timeoutMs, as a TIMEOUT, and hangs up', async () => {
    const http = createHttpTool({ allowHosts: [`127.0.0.1:${port}`] });
    const error = await toolCallErrorOf(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/trickle`, timeoutMs: 300 }));
    expect(error).toMatchObject({
      code: 'TIMEOUT',
      message: `request to http://127.0.0.1:${port}/trickle timed out after 300 ms: raise timeoutMs or try again`,
    });
    await expect.poll(() => closed.includes('/trickle')).toBe(true);
  });

  it('ends the call when the run ends, even mid-body', async () => {
    const http = createHttpTool({ allowHosts: [`127.0.0.1:${port}`] });
    const run = new AbortController();
    const pending = toolCallErrorOf(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/trickle`, timeoutMs: 60_000 }, run.signal));
    await expect.poll(() => received.some((request) => request.url === '/trickle')).toBe(true);
    run.abort();
    expect((await pending).code).toBe('CANCELLED');
  });

  it('never accepts a maxBytes past the result cap', async () => {
    const http = createHttpTool({ allowHosts: [`127.0.0.1:${port}`], maxResultBytes: 4000 });
    await expect(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/big`, maxBytes: 5000 })).rejects.toThrow(/4000/);
    expect((await toolCallErrorOf(callTool(http, 'fetch', { url: `http://127.0.0.1:${port}/big` }))).code).toBe('RESULT_TOO_LARGE');
  });

  it('matches allow-list entries by host, host:port and *.domain', () => {
    const allowed = (url: string, hosts: string[]) => isHostAllowed(new URL(url), hosts);
    expect(allowed('https://API.example.com/x', ['api.example.com'])).toBe(true);
    expect(allowed('https://api.example.com:8443/x', ['api.example.com'])).toBe(true);
    expect(allowed('https://api.example.com:8443/x', ['api.example.com:443'])).toBe(false);
    expect(allowed('https://a.b.example.com/', ['*.example.com'])).toBe(true);
    expect(allowed('https://example.com/', ['*.example.com'])).toBe(false);
    expect(allowed('https://evilexample.com/', ['*.example.com'])).toBe(false);
    expect(allowed('https://example.com.evil.net/', ['example.com'])).toBe(false);
    expect(allowed('https://api.example.com@evil.net/', ['api.example.com'])).toBe(false);
    expect(allowed('https://user:pw@api.example.com/', ['api.example.com'])).toBe(true);
    expect(allowed('https://x.example.com.evil.net/', ['*.example.com'])).toBe(false);
    expect(allowed('http://[::1]:8080/', ['[::1]'])).toBe(true);
    expect(allowed('http://[::1]:8080/', ['localhost'])).toBe(false);
    expect(allowed('http://0x7f.1/', ['127.0.0.1'])).toBe(true);
    expect(allowed('http://0x7f.1/', ['localhost'])).toBe(false);
  });
});
