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
    return forbidden(`Host "${hostHeader}" refused: this server is bound to loopback and only answers requests addressed to this machine (localhost, 127.0.0.0/8, [::1])`);
  }
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  if (origin === 'null') {
    return forbidden('Origin "null" refused: a sandboxed frame, a file: page or a redirect may not call this server');
  }
  const parsed = parseUrl(origin);
  const sameOrigin = parsed !== undefined && (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === origin.replace(/\/$/, '') && host !== undefined && parsed.host === host.host;
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
 * Reads a JSON request body of at most `maxBytes`. `undefined` for an empty body; a refusal for a body
 * that is too large (reading stops there), that is not JSON, or that never finished arriving (the HTTP
 * server's request timeout ended the connection).
 */
export async function readJsonBody(request: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<{ value: unknown } | { refusal: Refusal }> {
  const tooLarge: Refusal = { status: 413, code: -32600, message: `request body refused: it is larger than ${maxBytes} bytes; send a smaller program or split the work` };
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { refusal: tooLarge };
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      size += (chunk as Buffer).byteLength;
      if (size > maxBytes) return { refusal: tooLarge };
      chunks.push(chunk as Buffer);
    }
  } catch {
    return { refusal: { status: 408, code: -32600, message: 'request body did not arrive in time; send the whole request at once' } };
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { refusal: { status: 400, code: -32700, message: `request body is not valid JSON (${error instanceof Error ? error.message : String(error)}); send one JSON-RPC message or a batch` } };
  }
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
