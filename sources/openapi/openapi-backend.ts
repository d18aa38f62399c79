import type { OpenApiConfig } from '../../config/index.js';
import {
  MAX_REDIRECTS,
  ToolCallError,
  createRedactor,
  errorMessage,
  isCredentialHeader,
  isHostAllowed,
  readBodyUpTo,
  type Backend,
  type BackendCall,
  type Redactor,
} from '../../core/index.js';
import { secretsOfApi } from './api-secrets.js';
import { buildRequest, type BuiltRequest } from './build-request.js';
import { readPlan } from './call-plan.js';

export const DEFAULT_OPENAPI_TIMEOUT_MS = 30_000;
export const DEFAULT_OPENAPI_MAX_RESPONSE_BYTES = 1024 * 1024;
/** How much of an error response's body its message quotes. */
const ERROR_EXCERPT_CHARS = 500;

export interface OpenApiBackendOptions {
  /** The configured APIs (`config.openapi`), by name. */
  apis: Record<string, OpenApiConfig>;
}

interface Call {
  api: string;
  config: OpenApiConfig;
  /** The origin the configured headers are sent to (none when the spec names no home server). */
  home: string | undefined;
  target: { capability: string; function: string };
  subject: string;
  signal: AbortSignal;
  /** Cuts this API's secrets (its headers, its URLs' credentials) out of what its server answers. */
  redact: Redactor;
  /** Told how a call that was performed was answered (for the bridge's message if its result is refused). */
  onPerformed?: (outcome: string) => void;
  /** The call's W3C trace context, sent as the `traceparent` header (to any origin: it holds no secret). */
  traceparent?: string;
}

/**
 * Performs the calls of built OpenAPI functions over HTTP, with std http's protections: the
 * configured headers are sent to the API's own origin only; a redirect to another origin must be to
 * a host of `redirectHosts` and never carries them (nor a credential-shaped header of the call: such
 * a call is refused); at most {@link MAX_REDIRECTS} redirects; the response body is capped while it
 * streams in; the whole call lives within `timeoutMs` and ends with the run. An HTTP error status is
 * a `TOOL_ERROR_RESULT` carrying the status and the start of the body, with the secrets cut out.
 */
export function createOpenApiBackend(options: OpenApiBackendOptions): Backend {
  // Derived once per API (headers, URLs and their encodings), not on every call.
  const redactors = new Map<string, Redactor>();
  const redactorOf = (api: string, config: OpenApiConfig): Redactor => {
    let redactor = redactors.get(api);
    if (redactor === undefined) redactors.set(api, (redactor = createRedactor({ secrets: secretsOfApi(config) })));
    return redactor;
  };
  return {
    async call(call: BackendCall): Promise<unknown> {
      const target = { capability: call.capability.module, function: call.function.name };
      const { source } = call.capability;
      const api = source.kind === 'openapi' ? source.api : '';
      const config = options.apis[api];
      const subject = `${call.capability.module}.${call.function.name}`;
      if (config === undefined) {
        throw new ToolCallError(
          'SERVER_UNAVAILABLE',
          `${subject}: openapi "${api}" is no longer in the config; rebuild the capabilities (agent-spaces capabilities build)`,
          target,
        );
      }
      const plan = readPlan(call.function);
      if (plan === undefined)
        throw new ToolCallError(
          'TOOL_FAILED',
          `${subject} was built without its call plan; rebuild the capabilities (agent-spaces capabilities build)`,
          target,
        );
      const base = config.baseUrl ?? plan.server;
      if (base === undefined || !/^https?:\/\//i.test(base)) {
        throw new ToolCallError(
          'TOOL_FAILED',
          `${subject}: the spec names no absolute server URL${base === undefined ? '' : ` (it says "${base}")`}; set openapi.${api}.baseUrl in the config`,
          target,
        );
      }
      let request: BuiltRequest;
      try {
        request = buildRequest(plan, call.args, base);
      } catch (error) {
        throw new ToolCallError('INVALID_ARGUMENTS', `${subject}: ${errorMessage(error)}`, target, { cause: error });
      }
      // The configured headers belong to the API's home: baseUrl, else the document's own server. An
      // operation the spec serves elsewhere gets none (a spec must not choose where the key goes).
      const home = originOf(config.baseUrl ?? plan.home);
      return send(request, {
        api,
        config,
        target,
        subject,
        home,
        signal: call.context.signal,
        redact: redactorOf(api, config),
        ...(call.onPerformed ? { onPerformed: call.onPerformed } : {}),
        ...(call.traceparent ? { traceparent: call.traceparent } : {}),
      });
    },
    async close() {
      // Nothing is kept open between calls: each uses fetch's own connection pool.
    },
  };
}

async function send(request: BuiltRequest, call: Call): Promise<unknown> {
  const { config, target, home } = call;
  const timeoutMs = config.timeoutMs ?? DEFAULT_OPENAPI_TIMEOUT_MS;
  const signal = AbortSignal.any([call.signal, AbortSignal.timeout(timeoutMs)]);
  let { url, method, body } = request;
  for (let redirects = 0; ; redirects += 1) {
    const headers = new Headers(request.headers);
    if (call.traceparent !== undefined) headers.set('traceparent', call.traceparent);
    // The configured headers (credentials) belong to the API's own origin and go nowhere else.
    if (url.origin === home) for (const [name, value] of Object.entries(config.headers ?? {})) headers.set(name, value);
    let reply: Response;
    try {
      reply = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }), redirect: 'manual', signal });
    } catch (error) {
      throw requestFailure(error, url, call, timeoutMs);
    }
    const location = reply.headers.get('location');
    if (reply.status >= 300 && reply.status < 400 && location !== null) {
      await reply.body?.cancel();
      if (redirects >= MAX_REDIRECTS)
        throw new ToolCallError(
          'TOOL_FAILED',
          `${call.subject}: ${shown(request.url)} redirected more than ${MAX_REDIRECTS} times`,
          target,
        );
      url = checkRedirect(new URL(location, url), url.origin, request.headers, call);
      if (reply.status === 303 || ((reply.status === 301 || reply.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return readReply(reply, url, method, call, timeoutMs);
  }
}

/**
 * A redirect's target, if it may be followed: http(s); on the same origin (or the API's home), or to a
 * `redirectHosts` host without credentials (the configured headers are added for the home only).
 */
function checkRedirect(next: URL, from: string, callHeaders: Headers, call: Call): URL {
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new ToolCallError(
      'FORBIDDEN',
      `${call.subject}: redirected to a ${next.protocol} URL; only http and https are followed`,
      call.target,
    );
  }
  if (next.origin === from || next.origin === call.home) return next;
  const allowed = call.config.redirectHosts ?? [];
  if (!isHostAllowed(next, allowed)) {
    throw new ToolCallError(
      'FORBIDDEN',
      `${call.subject}: redirected to another host (${next.host}); add it to openapi.${call.api}.redirectHosts to follow such redirects (the configured headers are never sent there)`,
      call.target,
      { details: { host: next.host, configKey: `openapi.${call.api}.redirectHosts` } },
    );
  }
  const credentials = [...callHeaders.keys()].filter(isCredentialHeader);
  if (credentials.length > 0) {
    throw new ToolCallError(
      'FORBIDDEN',
      `${call.subject}: redirected to another origin (${next.origin}) while the call carries credentials (${credentials.map((name) => `header "${name}"`).join(', ')}), which are not sent to another host`,
      call.target,
      {
        details: { from, to: next.origin, headers: credentials },
      },
    );
  }
  return next;
}

async function readReply(reply: Response, url: URL, method: string, call: Call, timeoutMs: number): Promise<unknown> {
  const maxBytes = call.config.maxResponseBytes ?? DEFAULT_OPENAPI_MAX_RESPONSE_BYTES;
  let bytes: Buffer | undefined;
  try {
    bytes = await readBodyUpTo(reply, maxBytes);
  } catch (error) {
    throw requestFailure(error, url, call, timeoutMs);
  }
  if (bytes === undefined) {
    throw new ToolCallError(
      'RESULT_TOO_LARGE',
      `${call.subject}: the response of ${method} ${shown(url)} is larger than ${maxBytes} bytes (openapi.${call.api}.maxResponseBytes): ask for less (a page, a filter) or raise the limit`,
      call.target,
      {
        details: { maxBytes },
      },
    );
  }
  const text = bytes.toString('utf8');
  if (!reply.ok) {
    // Redacted before it is cut: a cut first would leave the start of an echoed key in the excerpt.
    const excerpt = call.redact.excerpt(text, ERROR_EXCERPT_CHARS);
    throw new ToolCallError(
      'TOOL_ERROR_RESULT',
      `${call.subject}: ${method} ${shown(url)} answered ${reply.status} ${reply.statusText}${excerpt.trim() === '' ? '' : `: ${excerpt}`}`,
      call.target,
      {
        details: { status: reply.status, body: excerpt },
      },
    );
  }
  call.onPerformed?.(`${method} ${url.pathname} answered ${reply.status}`);
  if (text === '') return null;
  if (!/\bjson\b/i.test(reply.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ToolCallError(
      'TOOL_FAILED',
      `${call.subject}: ${method} ${shown(url)} answered with a JSON content type but a body that is not JSON: ${errorMessage(error)}`,
      call.target,
    );
  }
}

function requestFailure(error: unknown, url: URL, call: Call, timeoutMs: number): ToolCallError {
  if (call.signal.aborted)
    return new ToolCallError('CANCELLED', `${call.subject}: the request to ${shown(url)} was cancelled: the run ended`, call.target, {
      cause: error,
    });
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new ToolCallError(
      'TIMEOUT',
      `${call.subject}: the request to ${shown(url)} timed out after ${timeoutMs} ms (openapi.${call.api}.timeoutMs)`,
      call.target,
      { cause: error },
    );
  }
  return new ToolCallError(
    'TOOL_FAILED',
    `${call.subject}: the request to ${shown(url)} failed: ${call.redact.text(errorMessage(error))}`,
    call.target,
    { cause: error },
  );
}

function originOf(url: string | undefined): string | undefined {
  try {
    return url === undefined ? undefined : new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** A URL for messages: origin and path (query values may be long or private). */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
