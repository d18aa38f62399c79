import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorMessage } from '../../core/index.js';
import { checkHostAndOrigin, DEFAULT_HTTP_LIMITS, hasBearerToken, readJsonBody, resolveHttpBind, sameSecret } from '../../server/index.js';
import type { SpaceOptions } from '../../space/index.js';
import { askExternalApproval, EXTERNAL_APPROVAL_PATH } from './api-external-approvals.js';
import { ROUTES } from './routes.js';
import { createStudioContext, type OpenSpace, type StudioContext } from './studio-context.js';
import { StudioError } from './studio-error.js';
import { defaultUiDir, hasUi, serveUiFile } from './static-files.js';

export interface StudioOptions extends Pick<SpaceOptions, 'config' | 'cwd' | 'configFile' | 'isolation'> {
  /** How to open the space (the CLI passes `openSpace`, so agents are in it as everywhere else). */
  openSpace: OpenSpace;
  /** Port on 127.0.0.1 (0: any free port). Default 0. */
  port?: number;
  /** The token the URL carries (default: 32 random bytes). */
  token?: string;
  /**
   * The durable runs' store (postgres://…; default: the config's `store`, else `$AGENT_SPACES_STORE`):
   * the playground's runs go to its workers, the inbox decides its approvals, the runs pane lists its runs.
   */
  store?: string;
  /** The folder of `agent-spaces eval` run folders the eval pane lists (default `<root>/.agent-spaces/eval`). */
  evalDir?: string;
  /**
   * Several spaces, one folder each (its own config), behind one studio: the page's space picker
   * chooses one, and every API request names it (`x-agent-spaces-space` header; `space` query parameter
   * of the event stream). The first is the default. Without it: the one space of `config`/`cwd`.
   */
  spaces?: { name: string; cwd: string }[];
  /** The built UI (default: the package's `dist/studio-ui`). */
  uiDir?: string;
  log?: (line: string) => void;
}

export interface RunningStudio {
  /** The address to open, token included: `http://127.0.0.1:<port>/#token=<token>`. */
  url: string;
  /** The address without the token. */
  origin: string;
  token: string;
  close(): Promise<void>;
}

/** Largest request body of the studio's API (a program or an agent file), in bytes. */
export const STUDIO_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Serves the studio: the prebuilt UI and a JSON + server-sent-events API over one space, on loopback
 * only, with `serve --http`'s guards (the checked address is the bound one, Host and Origin checks
 * against DNS rebinding and other pages, body, header and request-time caps) and a token every API
 * request must carry (the page reads it from the URL's fragment, which browsers never send).
 */
export async function startStudio(options: StudioOptions): Promise<RunningStudio> {
  const bind = await resolveHttpBind({ host: '127.0.0.1' });
  const uiDir = options.uiDir ?? defaultUiDir();
  if (!(await hasUi(uiDir))) {
    throw new StudioError(
      'STUDIO_NOT_FOUND',
      `the studio's UI is not built (no ${uiDir}/index.html): run "npm run build:studio" in the agent-spaces package`,
    );
  }
  const token = options.token ?? randomBytes(32).toString('base64url');
  const log = options.log ?? (() => undefined);
  const contexts = await openContexts(options);
  const [[, context] = []] = contexts;
  if (context === undefined) throw new StudioError('STUDIO_BAD_REQUEST', 'the studio needs at least one space');

  const server = createServer(
    {
      requestTimeout: DEFAULT_HTTP_LIMITS.requestTimeoutMs,
      headersTimeout: Math.min(DEFAULT_HTTP_LIMITS.requestTimeoutMs, 10_000),
      maxHeaderSize: DEFAULT_HTTP_LIMITS.maxHeaderBytes,
    },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        log(`studio: ${request.method} ${request.url?.split('?')[0]} failed: ${errorMessage(error)}`);
        sendJson(response, 500, { error: { code: 'INTERNAL', message: context.redact(errorMessage(error)) } });
      });
    },
  );

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refused = checkHostAndOrigin(request, bind.loopback);
    if (refused) return sendJson(response, refused.status, { error: { code: 'REFUSED', message: refused.message } });
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (!url.pathname.startsWith('/api/')) {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return sendJson(response, 405, { error: { code: 'METHOD', message: "the UI's files are read with GET" } });
      return serveUiFile(uiDir, url.pathname, response);
    }
    // EventSource cannot send headers: the event stream alone takes the token as a query parameter.
    const authorized =
      hasBearerToken(request, token) || (url.pathname === '/api/events' && sameSecret(url.searchParams.get('token') ?? '', token));
    if (!authorized)
      return sendJson(response, 401, {
        error: { code: 'UNAUTHORIZED', message: 'missing or wrong token: open the address the studio printed (it carries the token)' },
      });
    const picked = pickContext(contexts, request, url);
    if (!('space' in picked)) return sendJson(response, 404, { error: { code: 'STUDIO_NOT_FOUND', message: picked.unknown } });
    if (url.pathname === '/api/spaces' && request.method === 'GET')
      return sendJson(response, 200, { spaces: [...contexts.keys()], current: picked.name });
    const context = picked.space;
    if (url.pathname === '/api/events' && request.method === 'GET') return context.events.attach(response);
    // An attached process's call waits on its own answer stream, not on a route's JSON reply.
    const external = url.pathname === EXTERNAL_APPROVAL_PATH && request.method === 'POST';
    const route = ROUTES.find((candidate) => candidate.method === request.method && candidate.path.test(url.pathname));
    if (!route && !external)
      return sendJson(response, 404, { error: { code: 'STUDIO_NOT_FOUND', message: `no API ${request.method} ${url.pathname}` } });
    let body: unknown;
    if (request.method !== 'GET') {
      if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
        return sendJson(response, 415, {
          error: { code: 'STUDIO_BAD_REQUEST', message: 'send the request body as JSON (content-type: application/json)' },
        });
      }
      const read = await readJsonBody(request, STUDIO_MAX_BODY_BYTES);
      if ('refusal' in read)
        return sendJson(response, read.refusal.status, { error: { code: 'STUDIO_BAD_REQUEST', message: read.refusal.message } });
      body = read.value;
    }
    try {
      if (external || !route) return askExternalApproval(context, body, response);
      const params = (url.pathname.match(route.path) ?? []).slice(1);
      sendJson(response, 200, await route.handle({ context, params, query: url.searchParams, body }));
    } catch (error) {
      if (error instanceof StudioError)
        return sendJson(response, error.status, { error: { code: error.code, message: context.redact(error.message) } });
      const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'ERROR';
      sendJson(response, 500, { error: { code, message: context.redact(errorMessage(error)) } });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, bind.address, () => resolve());
  }).catch(async (error: unknown) => {
    await closeAll(contexts);
    throw error;
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${bind.address?.includes(':') ? `[${bind.address}]` : bind.address}:${port}`;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    token,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await closeAll(contexts);
      server.closeAllConnections();
      await closed;
    },
  };
}

export type { StudioContext };

/** One context per space (`spaces`), or the one of `config`/`cwd` under the name "" ; a failure closes those opened. */
async function openContexts(options: StudioOptions): Promise<Map<string, StudioContext>> {
  const common = {
    ...(options.configFile && !options.spaces ? { configFile: options.configFile } : {}),
    ...(options.isolation ? { isolation: options.isolation } : {}),
  };
  const wanted = options.spaces ?? [
    { name: '', ...(options.config ? { config: options.config } : {}), ...(options.cwd ? { cwd: options.cwd } : {}) },
  ];
  const contexts = new Map<string, StudioContext>();
  try {
    for (const { name, ...where } of wanted) {
      if (contexts.has(name)) throw new StudioError('STUDIO_BAD_REQUEST', `two spaces are named "${name}"`);
      contexts.set(name, await createStudioContext(options.openSpace, { ...where, ...common }, options.store, options.evalDir));
    }
  } catch (error) {
    await closeAll(contexts);
    throw error;
  }
  return contexts;
}

/** The context a request names (header, or the event stream's query parameter), else the first. */
function pickContext(
  contexts: Map<string, StudioContext>,
  request: IncomingMessage,
  url: URL,
): { name: string; space: StudioContext } | { unknown: string } {
  const header = request.headers['x-agent-spaces-space'];
  const name = (typeof header === 'string' ? header : undefined) ?? url.searchParams.get('space') ?? undefined;
  const [first] = contexts;
  if (name === undefined || name === '') return first ? { name: first[0], space: first[1] } : { unknown: 'no space' };
  const space = contexts.get(name);
  if (space) return { name, space };
  const names = [...contexts.keys()].filter(Boolean);
  return {
    unknown: `no space "${name}" in this studio (it has ${names.length === 0 ? 'one unnamed space' : names.map((each) => `"${each}"`).join(', ')})`,
  };
}

async function closeAll(contexts: Map<string, StudioContext>): Promise<void> {
  await Promise.allSettled([...contexts.values()].map((context) => context.close()));
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  response.end(text);
}
