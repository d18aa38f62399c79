import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Largest request body read, in bytes; an `execute_code` program is far smaller. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Why a request is turned away before it reaches the MCP transport. */
export interface Refusal {
  status: number;
  code: number;
  message: string;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether a bind address or host name means this machine only. */
export function isLoopback(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * Refuses what a web page could send to a server bound to this machine: a `Host` that is not this
 * machine (DNS rebinding turns attacker.example into 127.0.0.1) and an `Origin` of another site.
 * Servers bound to other addresses rely on the bearer token instead.
 */
export function checkLocalRequest(request: IncomingMessage, boundHost: string): Refusal | undefined {
  if (!isLoopback(boundHost)) return undefined;
  const host = request.headers.host ?? '';
  if (!isLoopback(hostnameOf(`http://${host}`) ?? '')) {
    return { status: 403, code: -32000, message: `Host "${host}" refused: this server is bound to ${boundHost} and only answers requests addressed to this machine (localhost, 127.0.0.1, [::1])` };
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null' && !isLoopback(hostnameOf(origin) ?? '')) {
    return { status: 403, code: -32000, message: `Origin "${origin}" refused: a web page of another site may not call this local server` };
  }
  return undefined;
}

/** Compares a request's `Authorization` header with the expected bearer token in constant time. */
export function hasBearerToken(request: IncomingMessage, token: string): boolean {
  const given = request.headers.authorization ?? '';
  // Hashing first gives equal lengths, as timingSafeEqual needs, without revealing the token's length.
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(`Bearer ${token}`));
}

/**
 * Reads a JSON request body of at most `maxBytes`. `undefined` for an empty body; a refusal for a body
 * that is too large (reading stops there) or is not JSON.
 */
export async function readJsonBody(request: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<{ value: unknown } | { refusal: Refusal }> {
  const tooLarge: Refusal = { status: 413, code: -32600, message: `request body refused: it is larger than ${maxBytes} bytes; send a smaller program or split the work` };
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { refusal: tooLarge };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).byteLength;
    if (size > maxBytes) return { refusal: tooLarge };
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { refusal: { status: 400, code: -32700, message: `request body is not valid JSON (${error instanceof Error ? error.message : String(error)}); send one JSON-RPC message or a batch` } };
  }
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
