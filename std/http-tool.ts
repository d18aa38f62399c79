import { z } from 'zod';
import {
  MAX_REDIRECTS,
  ToolCallError,
  defineFunction,
  defineTool,
  errorMessage,
  isCredentialHeader,
  isHostAllowed,
  readBodyUpTo,
} from '../core/index.js';
import type { ToolCallContext } from '../core/index.js';
import { createRunConcurrency } from './run-concurrency.js';
import { DEFAULT_STD_LIMITS, MAX_HEAVY_CALLS_PER_RUN, formatBytes } from './std-limits.js';

export interface HttpToolOptions {
  /** Hosts that may be reached: `api.example.com`, `*.example.com`, `localhost:8080`. Empty: none. */
  allowHosts?: readonly string[];
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Largest response body read, in bytes: the bridge's result cap. Default 1 MiB. */
  maxResultBytes?: number;
  /** Largest request body, in characters. Default 4 Mi. */
  maxInputChars?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

const response = z.object({
  status: z.number(),
  statusText: z.string(),
  ok: z.boolean(),
  url: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
  json: z.unknown().optional(),
});

/**
 * `http`: HTTP requests to the hosts of an allow-list (`std.http.allowHosts`); every other host is
 * refused with `FORBIDDEN`. Redirects are followed by hand so each hop is checked against the list,
 * and a redirect to another origin is refused while the request carries credentials. The whole call
 * (connect, headers, every redirect, the body) lives within `timeoutMs`, and the body is capped while
 * it streams in, never buffered past `maxBytes`.
 */
export function createHttpTool(options: HttpToolOptions = {}) {
  const allowHosts = [...(options.allowHosts ?? [])];
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_STD_LIMITS.maxResultBytes;
  const maxInputChars = options.maxInputChars ?? DEFAULT_STD_LIMITS.maxInputChars;
  const fetches = createRunConcurrency(MAX_HEAVY_CALLS_PER_RUN);

  return defineTool({
    name: 'http',
    description: `Make HTTP requests to allowed hosts (${allowHosts.length === 0 ? 'none are allowed yet' : allowHosts.join(', ')}).`,
    functions: {
      fetch: defineFunction({
        description:
          'Sends an HTTP request and returns {status, statusText, ok, url, headers, body (text), json (when the response is JSON)}. Only hosts in std.http.allowHosts are reachable.',
        parameters: z.object({
          url: z.string().describe('Absolute http(s) URL.'),
          method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']).default('GET'),
          headers: z.record(z.string(), z.string()).optional(),
          body: z.string().max(maxInputChars).optional().describe('Request body as text.'),
          json: z.unknown().optional().describe('A value to send as a JSON body (sets content-type).'),
          timeoutMs: z
            .number()
            .int()
            .positive()
            .max(300_000)
            .default(DEFAULT_TIMEOUT_MS)
            .describe('Time for the whole call, redirects and body included.'),
          maxBytes: z
            .number()
            .int()
            .positive()
            .max(maxResultBytes)
            .default(maxResultBytes)
            .describe(`Largest response body accepted, in bytes (at most ${maxResultBytes}).`),
        }),
        returns: response,
        // The slot is taken first, so timeoutMs counts from when the request really starts.
        handler: (params, context) =>
          fetches.run(context, async () => {
            const target = { capability: context.capability, function: context.function };
            const headers = new Headers(params.headers);
            let body = params.body;
            if (params.json !== undefined) {
              body = JSON.stringify(params.json);
              if (!headers.has('content-type')) headers.set('content-type', 'application/json');
            }
            const signal = AbortSignal.any([context.signal, AbortSignal.timeout(params.timeoutMs)]);
            let url = checkUrl(params.url, allowHosts, target);
            let method: string = params.method;
            for (let redirects = 0; ; redirects += 1) {
              let reply: Response;
              try {
                reply = await fetchImpl(url, { method, headers, ...(body === undefined ? {} : { body }), redirect: 'manual', signal });
              } catch (error) {
                throw requestFailure(error, url, params.timeoutMs, context);
              }
              const location = reply.headers.get('location');
              if (reply.status >= 300 && reply.status < 400 && location !== null) {
                await reply.body?.cancel();
                if (redirects >= MAX_REDIRECTS) {
                  throw new ToolCallError('TOOL_FAILED', `${params.url} redirected more than ${MAX_REDIRECTS} times`, target);
                }
                const next = checkUrl(new URL(location, url).href, allowHosts, target);
                // Credentials meant for one origin are never handed to another, whatever the header's name:
                // the call is refused rather than sent on without them, so nothing is silently dropped.
                const credentials = [...headers.keys()].filter(isCredentialHeader);
                if (next.origin !== url.origin && credentials.length > 0) {
                  throw new ToolCallError(
                    'FORBIDDEN',
                    `${shown(url)} redirected to another origin (${next.origin}) while the request carries credentials (${credentials.map((name) => `header "${name}"`).join(', ')}): std http does not send credentials to another host; request ${shown(next)} yourself if it should get them`,
                    target,
                    { details: { from: url.origin, to: next.origin, headers: credentials } },
                  );
                }
                url = next;
                if (reply.status === 303 || ((reply.status === 301 || reply.status === 302) && method === 'POST')) {
                  method = 'GET';
                  body = undefined;
                }
                continue;
              }
              let text: string;
              try {
                text = await readCapped(reply, Math.min(params.maxBytes, maxResultBytes), url, target);
              } catch (error) {
                if (error instanceof ToolCallError) throw error;
                throw requestFailure(error, url, params.timeoutMs, context);
              }
              const result: z.output<typeof response> = {
                status: reply.status,
                statusText: reply.statusText,
                ok: reply.ok,
                url: url.href,
                headers: Object.fromEntries(reply.headers),
                body: text,
              };
              if (/\bjson\b/i.test(reply.headers.get('content-type') ?? '')) {
                try {
                  result.json = JSON.parse(text);
                } catch {
                  // Declared JSON that is not: the text is still in `body`.
                }
              }
              return result;
            }
          }),
      }),
    },
  });
}

function checkUrl(raw: string, allowHosts: readonly string[], target: { capability: string; function: string }): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolCallError('INVALID_ARGUMENTS', `"${raw}" is not an absolute URL: write it as https://host/path`, target);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolCallError('FORBIDDEN', `${url.protocol} URLs are refused: only http and https are allowed`, target);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ToolCallError(
      'INVALID_ARGUMENTS',
      `${shown(url)} has credentials in it (user:password@): send them in an authorization header instead`,
      target,
      { details: { host: url.host } },
    );
  }
  if (!isHostAllowed(url, allowHosts)) {
    throw new ToolCallError(
      'FORBIDDEN',
      `host "${url.host}" is not allowed: add it to std.http.allowHosts in the config to let code reach it${allowHosts.length === 0 ? ' (no hosts are allowed now)' : ` (allowed: ${allowHosts.join(', ')})`}`,
      target,
      { details: { host: url.host, allowHosts, configKey: 'std.http.allowHosts' } },
    );
  }
  return url;
}

async function readCapped(reply: Response, maxBytes: number, url: URL, target: { capability: string; function: string }): Promise<string> {
  const body = await readBodyUpTo(reply, maxBytes);
  if (body === undefined) {
    throw new ToolCallError(
      'RESULT_TOO_LARGE',
      `the response of ${shown(url)} is larger than ${maxBytes} bytes (maxBytes, ${formatBytes(maxBytes)}): request less (a range, a page, a filter) or raise maxBytes`,
      target,
      {
        details: { maxBytes },
      },
    );
  }
  return body.toString('utf8');
}

function requestFailure(error: unknown, url: URL, timeoutMs: number, context: ToolCallContext): ToolCallError {
  const target = { capability: context.capability, function: context.function };
  if (context.signal.aborted)
    return new ToolCallError('CANCELLED', `request to ${shown(url)} was cancelled: the run ended`, target, { cause: error });
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new ToolCallError('TIMEOUT', `request to ${shown(url)} timed out after ${timeoutMs} ms: raise timeoutMs or try again`, target, {
      cause: error,
    });
  }
  return new ToolCallError('TOOL_FAILED', `request to ${shown(url)} failed: ${errorMessage(error)}`, target, { cause: error });
}

/** A URL for messages: a password written into it (`https://user:pw@host`) is not repeated. */
function shown(url: URL): string {
  if (url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.password = 'REDACTED';
  return copy.href;
}
