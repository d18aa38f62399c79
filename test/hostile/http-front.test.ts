// The HTTP front of `serve --http`: a request body over the limit is refused with 413, and the client
// that is still writing it gets that answer, not a connection reset (the server reads and discards the
// rest, bounded in bytes and time, before it closes). Without the drain, a reset came in some of the tries.
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardBody } from '../../server/http-guard.js';
import { serveSpace, type RunningServer } from '../../server/serve.js';
import { makeTempDir } from '../support/temp-dir.js';

const TOKEN = 'front-door';
const MAX_BODY = 64 * 1024;
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` };

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
}

/**
 * POSTs `total` bytes in chunks of `chunk` bytes, a pause between them (a client uploading slowly), with
 * a Content-Length or chunked; settles with the answer, or with the error the client saw.
 */
function postSlowly(url: string, options: { total: number; chunk: number; pauseMs: number; declareLength: boolean }): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, ...(options.declareLength ? { 'content-length': String(options.total) } : {}) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (part: Buffer) => chunks.push(part));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    // A JSON string that never ends: valid-looking bytes, too many of them.
    let sent = 0;
    const next = (): void => {
      if (sent >= options.total) {
        request.end();
        return;
      }
      const size = Math.min(options.chunk, options.total - sent);
      sent += size;
      const more = request.write(Buffer.alloc(size, sent === size ? '{' : 'x'));
      if (more) setTimeout(next, options.pauseMs);
      else request.once('drain', () => setTimeout(next, options.pauseMs));
    };
    next();
  });
}

describe('serve --http: an oversized body', { timeout: 120_000 }, () => {
  let running: RunningServer;
  let url: string;

  beforeAll(async () => {
    const root = await makeTempDir('http-front');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    running = await serveSpace({ cwd: root, http: { port: 0, token: TOKEN, maxBodyBytes: MAX_BODY } });
    url = running.url ?? '';
  });

  afterAll(async () => {
    await running.close();
  });

  for (const declareLength of [false, true]) {
    it(`gets its 413 every time, written slowly in chunks (${declareLength ? 'Content-Length' : 'chunked'})`, async () => {
      for (let attempt = 0; attempt < 6; attempt++) {
        const outcome = await postSlowly(url, { total: 1024 * 1024, chunk: 16 * 1024, pauseMs: 2, declareLength });
        expect(outcome, `attempt ${attempt + 1}`).toMatchObject({ status: 413 });
        expect(outcome.body).toContain(`larger than ${MAX_BODY} bytes`);
      }
    });
  }

  it('gets its 413 when the whole body is written at once', async () => {
    for (let attempt = 0; attempt < 6; attempt++) {
      const outcome = await postSlowly(url, {
        total: 2 * 1024 * 1024,
        chunk: 2 * 1024 * 1024,
        pauseMs: 0,
        declareLength: attempt % 2 === 0,
      });
      expect(outcome, `attempt ${attempt + 1}`).toMatchObject({ status: 413 });
    }
  });

  it('still serves a request of the right size afterwards', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const outcome = await new Promise<Outcome>((resolve) => {
      const request = httpRequest(url, { method: 'POST', headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (part: Buffer) => chunks.push(part));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      });
      request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      request.end(initialize);
    });
    expect(outcome.status).toBe(200);
    expect(outcome.body).toContain('agent-spaces');
  });
});

describe('discarding a refused body is bounded', { timeout: 60_000 }, () => {
  /** A server whose every request is discarded within `limits`; it says how many bytes each one read. */
  async function discardingServer(limits: {
    maxBytes: number;
    maxMs: number;
  }): Promise<{ url: string; read: Promise<number>; close: () => void }> {
    let report: (bytes: number) => void = () => undefined;
    const read = new Promise<number>((resolve) => (report = resolve));
    const server = createServer((request: IncomingMessage, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      void discardBody(request, limits).then(() => {
        report(bytes);
        response.setHeader('connection', 'close');
        response.writeHead(413).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, read, close: () => server.close() };
  }

  /** Writes chunks until the connection fails, without end. */
  function writeForever(url: string, chunk: number, pauseMs: number): void {
    const request = httpRequest(url, { method: 'POST' });
    request.on('error', () => undefined);
    request.on('response', (response) => response.resume());
    const next = (): void => {
      if (request.destroyed) return;
      if (request.write(Buffer.alloc(chunk, 'x'))) setTimeout(next, pauseMs);
      else request.once('drain', next);
    };
    next();
  }

  it('stops reading an endless body past its byte bound', async () => {
    const server = await discardingServer({ maxBytes: 256 * 1024, maxMs: 60_000 });
    try {
      writeForever(server.url, 64 * 1024, 0);
      const bytes = await server.read;
      expect(bytes).toBeGreaterThan(256 * 1024);
      expect(bytes).toBeLessThan(8 * 1024 * 1024);
    } finally {
      server.close();
    }
  });

  it('stops waiting for a body that trickles in, at its time bound', async () => {
    const server = await discardingServer({ maxBytes: 64 * 1024 * 1024, maxMs: 500 });
    try {
      writeForever(server.url, 16, 50);
      const bytes = await server.read;
      expect(bytes).toBeLessThan(64 * 1024 * 1024);
    } finally {
      server.close();
    }
  });
});
