import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHostname } from './loopback.js';

/** Largest request body read, in bytes, by default; an `execute_code` program is far smaller. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

// A Host header is host[:port] and nothing else: no userinfo, path, query or fragment for the URL parser to
// read a different host name out of.
const PLAIN_AUTHORITY = /^[^\s/?#@\\]+$/;

/** Why a request is turned away before it reaches the MCP transport. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
}

/**
 * Refuses what a web page could send: an `Origin` other than the server's own (including `null`, the
 * origin of sandboxed frames, `file:` pages and redirects), and, on a server bound to loopback, a `Host`
 * that is not this machine (DNS rebinding turns attacker.example into 127.0.0.1). Clients that are not
 * browsers send no `Origin`. Host names are parsed, never compared as strings.
 */
export function checkHostAndOrigin(request: IncomingMessage, boundToLoopback: boolean): Refusal | undefined {
  const hostHeader = request.headers.host ?? '';
  const host = parseUrl(`http://${hostHeader}`);
  if (boundToLoopback && (!host || !PLAIN_AUTHORITY.test(hostHeader) || !isLoopbackHostname(host.hostname))) {
    return forbidden(
      `Host "${hostHeader}" refused: this server is bound to loopback and only answers requests addressed to this machine (localhost, 127.0.0.0/8, [::1])`,
    );
  }
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  if (origin === 'null') {
    return forbidden('Origin "null" refused: a sandboxed frame, a file: page or a redirect may not call this server');
  }
  const parsed = parseUrl(origin);
  const sameOrigin =
    parsed !== undefined &&
    (parsed.protocol === 'http:' || parsed.protocol === 'https:') &&
    parsed.origin === origin.replace(/\/$/, '') &&
    host !== undefined &&
    parsed.host === host.host;
  if (!sameOrigin) {
    return forbidden(`Origin "${origin}" refused: only pages of this server's own origin (http://${hostHeader}) may call it`);
  }
  return undefined;
}

/** Compares a request's `Authorization` header with the expected bearer token in constant time. */
export function hasBearerToken(request: IncomingMessage, token: string): boolean {
  return sameSecret(request.headers.authorization ?? '', `Bearer ${token}`);
}

/** Whether `given` is `expected`, compared in constant time. */
export function sameSecret(given: string, expected: string): boolean {
  // Hashing first gives equal lengths, as timingSafeEqual needs, without revealing the secret's length.
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * What is read and thrown away of a refused request's body before its connection closes. A server that
 * closes a socket with unread bytes makes the kernel send a reset, which destroys the answer on its way:
 * a client still writing its too-large body would see ECONNRESET or EPIPE instead of the 413. Past these
 * bounds (a body far too large, or sent too slowly) the connection is closed anyway.
 */
export const DISCARD_LIMITS = { maxBytes: 64 * 1024 * 1024, maxMs: 10_000 };

/**
 * Reads a JSON request body of at most `maxBytes`. `undefined` for an empty body; a refusal for a body
 * that is too large (the rest is read and discarded, within `DISCARD_LIMITS`, so the refusal reaches the
 * client), that is not JSON, or that never finished arriving (the HTTP server's request timeout ended
 * the connection).
 */
export async function readJsonBody(
  request: IncomingMessage,
  maxBytes = MAX_BODY_BYTES,
): Promise<{ value: unknown } | { refusal: Refusal }> {
  const tooLarge: Refusal = {
    status: 413,
    code: -32600,
    message: `request body refused: it is larger than ${maxBytes} bytes; send a smaller program or split the work`,
  };
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await discardBody(request);
    return { refusal: tooLarge };
  }
  const body = await readUpTo(request, maxBytes);
  if (body === 'too large') {
    await discardBody(request);
    return { refusal: tooLarge };
  }
  if (body === 'incomplete')
    return { refusal: { status: 408, code: -32600, message: 'request body did not arrive in time; send the whole request at once' } };
  const text = body.toString('utf8');
  if (text === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return {
      refusal: {
        status: 400,
        code: -32700,
        message: `request body is not valid JSON (${error instanceof Error ? error.message : String(error)}); send one JSON-RPC message or a batch`,
      },
    };
  }
}

/** The body, or where reading it stopped: past `maxBytes` (the rest left unread), or cut off. */
function readUpTo(request: IncomingMessage, maxBytes: number): Promise<Buffer | 'too large' | 'incomplete'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: Buffer | 'too large' | 'incomplete'): void => {
      request.off('data', onData).off('end', onEnd).off('error', onFailure).off('close', onClose);
      resolve(outcome);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size > maxBytes) {
        request.pause();
        return finish('too large');
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(Buffer.concat(chunks));
    const onFailure = (): void => finish('incomplete');
    // Closed before its end: the request timeout, or the client went away.
    const onClose = (): void => finish(request.complete ? Buffer.concat(chunks) : 'incomplete');
    request.on('data', onData).on('end', onEnd).on('error', onFailure).on('close', onClose);
  });
}

/**
 * Reads what is left of a request's body and throws it away, until its end, `DISCARD_LIMITS.maxBytes`
 * or `DISCARD_LIMITS.maxMs`, whichever comes first. Call it before answering a request whose body was
 * not read, so the answer is not lost to a reset when the connection closes.
 */
export function discardBody(request: IncomingMessage, limits = DISCARD_LIMITS): Promise<void> {
  if (request.complete || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let size = 0;
    const finish = (): void => {
      clearTimeout(timer);
      request.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
      request.pause();
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.byteLength;
      if (size > limits.maxBytes) finish();
    };
    const timer = setTimeout(finish, limits.maxMs);
    request.on('data', onData).on('end', finish).on('error', finish).on('close', finish);
    request.resume();
  });
}

function forbidden(message: string): Refusal {
  return { status: 403, code: -32000, message };
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
