import { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
// The SDK's values are imported where a connection is made: importing the package must not load it.
import type {
  Client,
  ClientOptions,
  ElicitRequestFormParams,
  ElicitResult,
  Implementation,
  ProtocolError,
  RequestOptions,
  SdkError,
  SdkErrorCode,
  Tool,
  Transport,
  VersionNegotiationOptions,
  JsonSchemaValidator,
  specTypeSchemas as specTypeSchemasOfSdk,
} from '@modelcontextprotocol/client';
import type { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { z } from 'zod';
import { AgentSpacesError, canonicalJson, errorMessage } from '../../core/index.js';
import { isStdioServer } from '../../config/index.js';
import { redactText, type Secret } from '../../core/index.js';
import { secretsOfMcpServer } from './server-secrets.js';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from '../../config/index.js';
import { mapStrings } from '../map-strings.js';

/** How long starting a server and the `initialize` handshake may take, unless configured. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
/** How much of a stdio server's stderr is kept (redacted) for the host log and host-side errors. */
const STDERR_TAIL_CHARS = 4096;
const PACKAGE_CLIENT_INFO = { name: 'agent-spaces', version: '0.1.0' };

/** The MCP protocol a server is spoken to in (`protocol` of its config entry). */
export type McpProtocolChoice = 'auto' | '2026-07-28' | '2025-11-25';

/** An open connection to one MCP server. */
export interface McpConnection {
  readonly client: Client;
  /** What the server said about itself (in `initialize`, or in `server/discover`'s `_meta`). */
  readonly serverInfo: Implementation | undefined;
  /**
   * The protocol era the connection speaks: `modern` (2026-07-28: stateless, `input_required`
   * results) or `legacy` (2025-11-25 and before: `initialize`, server-to-client requests).
   */
  readonly era?: 'modern' | 'legacy';
  /** The protocol version agreed on (`2026-07-28`, `2025-11-25`, …). */
  readonly protocolVersion?: string;
  /** The transport that answered: `stdio`, `streamable-http`, `sse` (or anything a custom connector says). */
  readonly transport: string;
  /** The child's process id, for stdio servers. */
  readonly pid?: number;
  /**
   * The last few KB the server wrote to stderr, with the secrets of its configuration cut out (stdio
   * servers; empty otherwise). For the host's log: never hand it to a program.
   */
  stderrTail(): string;
  /** How the server process ended (`exit code 1`, `signal SIGTERM`), once it has. */
  exitStatus?(): string | undefined;
  /**
   * `tools/call` as the pool sends it (see {@link toolCaller}); a connection without it (a custom
   * connector's) is called through `client.callTool`.
   */
  callTool?: Client['callTool'];
  close(): Promise<void>;
}

/** A server's question to the user during a call (`elicitation/create`, form mode). */
export type McpElicitation = ElicitRequestFormParams;

export interface ConnectMcpServerOptions {
  clientInfo?: { name: string; version: string };
  /** Overrides the server's `connectTimeoutMs`. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Answers a 2025-era server's `elicitation/create` requests (sent during a call). Given: the client
   * declares the elicitation capability (form mode), which a 2026-era server's `input_required`
   * results also need. Absent: the client declares none, and servers do not ask.
   */
  onElicitation?: (request: McpElicitation) => Promise<ElicitResult>;
}

/**
 * A configured MCP server could not be started or did not complete the handshake. Its message and
 * details never hold a secret of the server's configuration: no command arguments, no URL credentials
 * or query, and the server's stderr only redacted.
 */
export class McpConnectError extends AgentSpacesError {
  override readonly name = 'McpConnectError';
  readonly server: string;
  /** The message without the server's stderr: short enough to hand on (e.g. to the program whose call failed). */
  readonly reason: string;
  /** What a stdio server wrote to stderr before it failed, redacted; for the host's log only. */
  readonly stderr: string;

  constructor(
    server: string,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown; code?: string; reason?: string; stderr?: string } = {},
  ) {
    super(options.code ?? 'MCP_CONNECT_FAILED', message, { details: { server, ...options.details }, cause: options.cause });
    this.server = server;
    this.reason = options.reason ?? message;
    this.stderr = options.stderr ?? '';
  }
}

/**
 * Starts (stdio) or reaches (Streamable HTTP, legacy SSE) one configured MCP server and opens the
 * connection in the protocol its `protocol` names ({@link protocolOf}): the 2025 `initialize`
 * handshake, the 2026-07-28 `server/discover` (no fallback), or `auto` (discover, falling back to the
 * 2025 handshake). Streamable HTTP that fails with a 4xx falls back to legacy SSE (2025 only) unless
 * the server's `type` is `sse` (SSE only). Rejects with a {@link McpConnectError} naming the server.
 *
 * @example
 * const connection = await connectMcpServer('files', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] });
 * const tools = await listAllTools(connection.client);
 * await connection.close();
 */
export async function connectMcpServer(
  name: string,
  server: McpServerConfig,
  options: ConnectMcpServerOptions = {},
): Promise<McpConnection> {
  const timeoutMs = options.timeoutMs ?? server.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const secrets = secretsOfMcpServer(server);
  const context: ConnectContext = {
    name,
    timeoutMs,
    clientInfo: options.clientInfo ?? PACKAGE_CLIENT_INFO,
    signal: options.signal,
    secrets,
    protocol: protocolOf(server),
    onElicitation: options.onElicitation,
  };
  try {
    return await (isStdioServer(server) ? connectStdio(context, server) : connectHttp(context, server));
  } catch (error) {
    throw withoutSecrets(name, error, secrets);
  }
}

/**
 * The connect error with the server's secrets cut out of its message, details and cause: a server may
 * print its key on stderr, an HTTP error may quote the URL, a spawn error carries the arguments.
 */
function withoutSecrets(name: string, error: unknown, secrets: readonly Secret[]): McpConnectError {
  const cut = (text: string): string => redactText(text, secrets);
  const connectError =
    error instanceof McpConnectError ? error : new McpConnectError(name, `MCP server "${name}": ${errorMessage(error)}`, { cause: error });
  const cause =
    connectError.cause instanceof Error
      ? Object.assign(new Error(cut(connectError.cause.message)), { name: connectError.cause.name })
      : undefined;
  return new McpConnectError(connectError.server, cut(connectError.message), {
    code: connectError.code,
    reason: cut(connectError.reason),
    stderr: cut(connectError.stderr),
    details: mapStrings(connectError.details ?? {}, cut),
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The protocol a server is spoken to in: its `protocol`, else `auto` for HTTP servers (a probe costs
 * one request) and `2025-11-25` for stdio servers (a probe there starts the server once more, and a
 * 2025 server that ignores it costs the whole probe timeout).
 */
export function protocolOf(server: McpServerConfig): McpProtocolChoice {
  return server.protocol ?? (isStdioServer(server) ? '2025-11-25' : 'auto');
}

/** What the SDK client is told to negotiate for a protocol choice. */
function negotiationOf(protocol: McpProtocolChoice, timeoutMs: number): VersionNegotiationOptions {
  if (protocol === '2025-11-25') return { mode: 'legacy' };
  if (protocol === '2026-07-28') return { mode: { pin: '2026-07-28' }, probe: { timeoutMs } };
  return { mode: 'auto', probe: { timeoutMs } };
}

/** Every tool of a server, following `nextCursor` through all pages of `tools/list`. */
export async function listAllTools(client: Client, options?: RequestOptions): Promise<Tool[]> {
  return pageThrough((cursor) => client.listTools(cursor === undefined ? {} : { cursor }, options));
}

/** Follows `nextCursor` through every page; a server that hands out the same cursor twice would page forever. */
async function pageThrough<T>(
  fetchPage: (cursor: string | undefined) => Promise<{ tools: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const tools: T[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor !== undefined && seenCursors.has(cursor)) break;
    if (cursor !== undefined) seenCursors.add(cursor);
  } while (cursor !== undefined);
  return tools;
}

/** One page of `tools/list` as sent, each tool unchecked (see {@link listAllToolsUnchecked}). */
const uncheckedToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

/**
 * Every tool of a server as the server sent it, following `nextCursor`: unlike {@link listAllTools},
 * a tool that breaks the protocol does not fail the whole list, so the caller can say which tool is
 * wrong and how.
 */
export async function listAllToolsUnchecked(client: Client, options?: RequestOptions): Promise<unknown[]> {
  return pageThrough((cursor) =>
    client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, uncheckedToolsPage, options),
  );
}

/**
 * A stable sha256 of a tool schema: canonical JSON (object keys sorted, recursively). The compiler
 * and the MCP backend both use it, so a tool whose schema changed after the build is detected.
 */
export function hashToolSchema(schema: unknown): string {
  return createHash('sha256').update(canonicalJson(schema)).digest('hex');
}

interface ConnectContext {
  name: string;
  timeoutMs: number;
  clientInfo: { name: string; version: string };
  signal: AbortSignal | undefined;
  /** The server's secrets (see `secretsOfMcpServer`), cut out of its stderr. */
  secrets: readonly Secret[];
  protocol: McpProtocolChoice;
  onElicitation: ConnectMcpServerOptions['onElicitation'];
}

async function connectStdio(context: ConnectContext, server: StdioServerConfig): Promise<McpConnection> {
  const [{ Client, specTypeSchemas }, { StdioClientTransport, getDefaultEnvironment }] = await Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]);
  const commandLine = describeCommand(server);
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args ?? [],
    env: { ...getDefaultEnvironment(), ...server.env },
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    // Piped, never inherited: a server's chatter must not land on our stdout/stderr.
    stderr: 'pipe',
  });
  const stderr = captureTail(transport.stderr, context.secrets);
  let exit: string | undefined;
  let child: ChildProcess | undefined;
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    child = childOf(transport);
    child?.once('exit', (code, signal) => {
      exit = signal === null ? `exit code ${code ?? 'unknown'}` : `signal ${signal}`;
    });
    // The SDK skips stdout lines that are not JSON; a call such a line was meant to answer would
    // wait for its timeout. Reported as the transport's error, the pool fails the calls in flight.
    if (child?.stdout)
      watchForNonJsonLines(child.stdout, (line) => transport.onerror?.(new SyntaxError(`a line on stdout is not valid JSON: ${line}`)));
  };

  const client = createClient(Client, context, context.protocol);
  try {
    await client.connect(transport, { timeout: context.timeoutMs, ...(context.signal === undefined ? {} : { signal: context.signal }) });
  } catch (error) {
    // How the child ended on its own, before we end it below.
    const exitedBefore = exit;
    await client.close().catch(() => undefined);
    // A child that failed the handshake gets no graceful shutdown (the SDK would wait seconds for it).
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    } else {
      // The child's last words arrive just after it closes; give them a moment.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw stdioConnectError(context, commandLine, error, { exit: exitedBefore, stderr: stderr.text(), pid: child?.pid });
  }
  const pid = transport.pid ?? undefined;
  return {
    client,
    serverInfo: client.getServerVersion(),
    ...eraOf(client),
    transport: 'stdio',
    ...(pid === undefined ? {} : { pid }),
    stderrTail: () => stderr.text(),
    exitStatus: () => exit,
    callTool: toolCaller(client, specTypeSchemas.CallToolResult),
    close: () => client.close(),
  };
}

function stdioConnectError(
  context: ConnectContext,
  commandLine: string,
  error: unknown,
  child: { exit: string | undefined; stderr: string; pid: number | undefined },
): McpConnectError {
  const { exit, stderr, pid } = child;
  const prefix = `MCP server "${context.name}"`;
  const tail = stderr.trim() === '' ? '' : `; stderr:\n${stderr.trim()}`;
  const details = { command: commandLine, ...(exit === undefined ? {} : { exit }), ...(pid === undefined ? {} : { pid }) };
  // Checked first: the SDK reports an aborted request as a timeout.
  if (context.signal?.aborted === true) {
    return new McpConnectError(context.name, `${prefix}: connecting was cancelled`, {
      code: 'MCP_CONNECT_CANCELLED',
      details,
      cause: error,
    });
  }
  if (isEraMismatch(error)) {
    const reason = `${prefix}: "${commandLine}" ${eraMismatch(context.protocol, error)}`;
    return new McpConnectError(context.name, `${reason}${tail}`, {
      code: 'MCP_PROTOCOL_MISMATCH',
      details: { ...details, protocol: context.protocol },
      cause: error,
      reason,
      stderr,
    });
  }
  if (isRequestTimeout(error)) {
    const reason = `${prefix}: "${commandLine}" did not complete the MCP handshake within ${context.timeoutMs} ms; check that it is an MCP stdio server, or raise connectTimeoutMs`;
    return new McpConnectError(context.name, `${reason}${tail}`, { code: 'MCP_CONNECT_TIMEOUT', details, cause: error, reason, stderr });
  }
  const what = exit === undefined ? spawnFailure(error, commandLine) : `it exited (${exit}) before completing the MCP handshake`;
  const reason = `${prefix}: failed to start "${commandLine}": ${what}`;
  return new McpConnectError(context.name, `${reason}${tail}`, { details, cause: error, reason, stderr });
}

/** Why spawning failed, naming the command only: Node's message may quote the whole command line. */
function spawnFailure(error: unknown, command: string): string {
  const code = error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
  if (code !== undefined && 'syscall' in (error as object)) return `spawn ${command} ${code}`;
  return errorMessage(error);
}

async function connectHttp(context: ConnectContext, server: HttpServerConfig): Promise<McpConnection> {
  const url = new URL(server.url);
  const requestInit: RequestInit = server.headers === undefined ? {} : { headers: server.headers };
  const { SSEClientTransport, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  if (server.type === 'sse') return connectOverHttp(context, url, new SSEClientTransport(url, { requestInit }), 'sse');
  try {
    return await connectOverHttp(context, url, new StreamableHTTPClientTransport(url, { requestInit }), 'streamable-http');
  } catch (error) {
    // Servers that predate Streamable HTTP answer its POST with 404/405 (or another 4xx). Legacy SSE
    // is 2025-era only: a server configured for 2026-07-28 gets no second try.
    if (
      !(error instanceof McpConnectError) ||
      error.code === 'MCP_PROTOCOL_MISMATCH' ||
      !isClientHttpError(error.cause) ||
      context.protocol === '2026-07-28'
    )
      throw error;
    try {
      return await connectOverHttp(context, url, new SSEClientTransport(url, { requestInit }), 'sse');
    } catch (sseError) {
      throw new McpConnectError(
        context.name,
        `MCP server "${context.name}": ${describeUrl(url)} refused Streamable HTTP (${describeHttpError(error.cause)}) and legacy SSE (${describeHttpError(sseError instanceof McpConnectError ? sseError.cause : sseError)}); check the URL`,
        { details: { url: describeUrl(url) }, cause: sseError },
      );
    }
  }
}

async function connectOverHttp(context: ConnectContext, url: URL, transport: Transport, kind: string): Promise<McpConnection> {
  const { Client, specTypeSchemas } = await import('@modelcontextprotocol/client');
  // Legacy SSE has no 2026 era: the probe would only cost a round trip.
  const client = createClient(Client, context, kind === 'sse' ? '2025-11-25' : context.protocol);
  try {
    await client.connect(transport, { timeout: context.timeoutMs, ...(context.signal === undefined ? {} : { signal: context.signal }) });
  } catch (error) {
    await client.close().catch(() => undefined);
    if (context.signal?.aborted === true) {
      throw new McpConnectError(context.name, `MCP server "${context.name}": connecting was cancelled`, {
        code: 'MCP_CONNECT_CANCELLED',
        cause: error,
      });
    }
    if (isEraMismatch(error)) {
      throw new McpConnectError(context.name, `MCP server "${context.name}": ${describeUrl(url)} ${eraMismatch(context.protocol, error)}`, {
        code: 'MCP_PROTOCOL_MISMATCH',
        details: { url: describeUrl(url), transport: kind, protocol: context.protocol },
        cause: error,
      });
    }
    const message = isRequestTimeout(error)
      ? `no answer to the MCP handshake within ${context.timeoutMs} ms over ${kind}; check the URL or raise connectTimeoutMs`
      : `could not connect to ${describeUrl(url)} over ${kind}: ${describeHttpError(error)}`;
    throw new McpConnectError(context.name, `MCP server "${context.name}": ${message}`, {
      code: isRequestTimeout(error) ? 'MCP_CONNECT_TIMEOUT' : 'MCP_CONNECT_FAILED',
      details: { url: describeUrl(url), transport: kind },
      cause: error,
    });
  }
  return {
    client,
    serverInfo: client.getServerVersion(),
    ...eraOf(client),
    transport: kind,
    stderrTail: () => '',
    callTool: toolCaller(client, specTypeSchemas.CallToolResult),
    close: () => client.close(),
  };
}

/**
 * The SDK's error codes we act on, checked by tsc against its `SdkErrorCode` enum: as plain values,
 * so telling errors apart does not load the SDK.
 */
export const MCP_ERROR_CODES: {
  readonly ConnectionClosed: `${SdkErrorCode.ConnectionClosed}`;
  readonly RequestTimeout: `${SdkErrorCode.RequestTimeout}`;
  readonly EraNegotiationFailed: `${SdkErrorCode.EraNegotiationFailed}`;
} = {
  ConnectionClosed: 'CONNECTION_CLOSED',
  RequestTimeout: 'REQUEST_TIMEOUT',
  EraNegotiationFailed: 'ERA_NEGOTIATION_FAILED',
};

/**
 * Whether an error is a JSON-RPC error the server answered with (the SDK's `ProtocolError` and its
 * subclasses), told by its name and numeric code rather than by loading the SDK's class.
 */
export function isMcpError(error: unknown): error is ProtocolError {
  return error instanceof Error && error.name === 'ProtocolError' && typeof (error as { code?: unknown }).code === 'number';
}

/** Whether an error is one the SDK raised itself (`SdkError`, `SdkHttpError`: a timeout, a closed connection, an HTTP status). */
export function isSdkError(error: unknown): error is SdkError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === 'string' && /^Sdk(Http)?Error$/.test(error.name);
}

/** Whether an error is the SDK's request timeout. */
export function isRequestTimeout(error: unknown): boolean {
  return isSdkError(error) && error.code === MCP_ERROR_CODES.RequestTimeout;
}

/** Whether an error is the SDK's "the connection closed" (the server exited or hung up during the request). */
export function isConnectionClosed(error: unknown): boolean {
  return isSdkError(error) && error.code === MCP_ERROR_CODES.ConnectionClosed;
}

/**
 * Whether connecting failed because the server does not speak the protocol asked for. The SDK uses
 * the same code when the `server/discover` probe could not be sent at all (no network, a 5xx): that
 * is a connection failure, said as one.
 */
function isEraMismatch(error: unknown): boolean {
  // A 2026-only server answers the 2025 `initialize` with "Unsupported protocol version" (JSON-RPC, or HTTP 400).
  if (error instanceof Error && /unsupported protocol version/i.test(error.message)) return true;
  return isSdkError(error) && error.code === MCP_ERROR_CODES.EraNegotiationFailed && !/probe failed|\b5\d\d\b/.test(error.message);
}

/** Why a server refused the configured protocol, for people. */
function eraMismatch(protocol: McpProtocolChoice, error: unknown): string {
  const asked = protocol === 'auto' ? 'MCP 2026-07-28 (server/discover) or the 2025 handshake' : `MCP ${protocol}`;
  return `does not speak ${asked} (protocol: '${protocol}' in its config): ${errorMessage(error)}; set protocol to 'auto' or to the version the server speaks`;
}

/** The HTTP status of the SDK's HTTP errors (`SdkHttpError`, `SseError`), kept apart from their message. */
function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof Error) || isMcpError(error)) return undefined;
  const status: unknown = (error as { status?: unknown }).status;
  if (typeof status === 'number' && status > 0) return status;
  const code: unknown = (error as { code?: unknown }).code;
  return typeof code === 'number' && code > 0 ? code : undefined;
}

/** The SDK's HTTP errors keep the status apart from the message (which may be empty). */
function describeHttpError(error: unknown): string {
  const message = errorMessage(error);
  const status = httpStatusOf(error);
  if (status === undefined || message.includes(String(status))) return message;
  return `HTTP ${status}: ${message}`;
}

function isClientHttpError(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && status >= 400 && status < 500;
}

/** The program only: a server's arguments may hold its keys (`--api-key=…`), so messages never show them. */
function describeCommand(server: StdioServerConfig): string {
  return server.command;
}

/** A URL without its user name, password, query and fragment, which may hold credentials. */
function describeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * The SDK keeps the child process private and drops its exit status; we read it only to say how a
 * server ended. Should a future SDK rename the field, messages merely lose the exit code.
 */
function childOf(transport: StdioClientTransport): ChildProcess | undefined {
  const child: unknown = Reflect.get(transport, '_process');
  return child instanceof ChildProcess ? child : undefined;
}

/** How much of a line that is not JSON is quoted in the error about it. */
const QUOTED_LINE_CHARS = 200;

/**
 * Calls `report` with the start of every stdout line that cannot be a JSON-RPC message (its first
 * character is not `{`). Only each line's first byte is looked at, and the start of a bad one kept:
 * a large result costs a few `indexOf`s, not a second parse.
 */
function watchForNonJsonLines(stdout: Readable, report: (line: string) => void): void {
  let state: 'start' | 'json' | 'other' = 'start';
  let head = '';
  stdout.on('data', (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let offset = 0;
    while (offset < bytes.length) {
      if (state === 'start') state = bytes[offset] === 0x7b ? 'json' : 'other';
      const newline = bytes.indexOf(0x0a, offset);
      const end = newline === -1 ? bytes.length : newline;
      if (state === 'other' && head.length < QUOTED_LINE_CHARS)
        head += bytes.toString('utf8', offset, Math.min(end, offset + QUOTED_LINE_CHARS));
      if (newline === -1) return;
      const text = head.trim();
      // Blank lines and JSON after leading spaces are fine.
      if (state === 'other' && text !== '' && !text.startsWith('{')) report(text.slice(0, QUOTED_LINE_CHARS));
      state = 'start';
      head = '';
      offset = newline + 1;
    }
  });
}

/**
 * Keeps the last few KB of a child's stderr and hands them out redacted. Twice as much is kept raw as is
 * handed out, and a line cut by the bound is dropped, so a secret is never split where its matcher
 * could no longer see it whole.
 */
function captureTail(stream: unknown, secrets: readonly Secret[]): { text(): string } {
  let tail = '';
  let cut = false;
  const longest = Math.max(0, ...secrets.map((secret) => secret.value.length));
  if (stream !== null && typeof stream === 'object' && 'on' in stream) {
    (stream as Readable).on('data', (chunk: Buffer | string) => {
      tail += chunk.toString();
      if (tail.length > 2 * STDERR_TAIL_CHARS) {
        tail = tail.slice(-2 * STDERR_TAIL_CHARS);
        cut = true;
      }
    });
  }
  return {
    text() {
      let text = redactText(tail, secrets);
      if (text.length > STDERR_TAIL_CHARS) {
        text = text.slice(-STDERR_TAIL_CHARS);
        cut = true;
      }
      if (cut) {
        // The first line may hold the end of a secret whose start was cut off: drop it.
        const newline = text.indexOf('\n');
        text = newline >= 0 ? text.slice(newline + 1) : text.slice(Math.min(text.length, longest));
      }
      return text;
    },
  };
}

/**
 * The SDK client would validate results with an ajv of its own, which prints "unknown format" to the
 * console for formats it does not know; the bridge validates every result with the build's ajv setup
 * (`core/json-schema.ts`), so the client accepts what it receives.
 */
const ACCEPT_EVERYTHING: ClientOptions['jsonSchemaValidator'] = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

/**
 * A client for one connection. `input_required` results (2026-07-28) are handed back to the caller
 * rather than fulfilled by the SDK (`autoFulfill: false`): the pool answers them through the
 * bridge's approvals for the call that got them, and retries that call itself. A 2025-era server's
 * `elicitation/create` goes to `onElicitation`.
 */
function createClient(ClientClass: typeof Client, context: ConnectContext, protocol: McpProtocolChoice): Client {
  const elicits = context.onElicitation !== undefined;
  const client = new ClientClass(context.clientInfo, {
    jsonSchemaValidator: ACCEPT_EVERYTHING,
    versionNegotiation: negotiationOf(protocol, context.timeoutMs),
    inputRequired: { autoFulfill: false },
    ...(elicits ? { capabilities: { elicitation: { form: {} } } } : {}),
  });
  const onElicitation = context.onElicitation;
  if (onElicitation !== undefined) {
    client.setRequestHandler('elicitation/create', async (request) => {
      // URL mode is not declared, so a well-behaved server sends forms only; anything else is declined.
      if (request.params.mode === 'url') return { action: 'decline' };
      return onElicitation(request.params);
    });
  }
  return client;
}

/**
 * `tools/call` for the pool. In the 2025 era it is `client.request` with the spec's `CallToolResult` as
 * the result schema: `client.callTool` would add a check of `structuredContent` against the output schema
 * the server listed (the bridge checks results against the built schema, and the pool detects a changed
 * schema before the call), and `request()` without a schema looks the method's own up by parsing
 * `undefined` against it — a failing parse whose error is formatted as text on every call (~80 µs a call,
 * measured on the bench's echo server). The 2026 era keeps `callTool`: it copies parameters its tools mark
 * into HTTP headers.
 */
function toolCaller(client: Client, spec: CallToolResultSchema): Client['callTool'] {
  if (client.getProtocolEra() === 'modern') return (params, options) => client.callTool(params, options);
  const resultSchema = legacyCallToolResult(spec);
  return (params, options) => client.request({ method: 'tools/call', params }, resultSchema, options);
}

type CallToolResultSchema = (typeof specTypeSchemasOfSdk)['CallToolResult'];
/** How many of a malformed result's problems an error names (the SDK would join them all into its message). */
const RESULT_ISSUES = 3;
/** Keys of other result families: a body with one of them and no `content` is not a tools/call success. */
const FOREIGN_RESULT_KEYS = ['task', 'inputRequests', 'requestState'];

/**
 * The spec's CallToolResult with the 2025 era's own rules (the SDK's 2025 wire schema, which `callTool`
 * checked by): `structuredContent` is an object, and a body of another result family does not default to
 * an empty success. Failures name their first {@link RESULT_ISSUES} problems.
 */
function legacyCallToolResult(schema: CallToolResultSchema): CallToolResultSchema {
  const standard = schema['~standard'];
  const validate: typeof standard.validate = (value, options) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const body = value as Record<string, unknown>;
      const foreign = body.content === undefined ? FOREIGN_RESULT_KEYS.find((key) => key in body) : undefined;
      if (foreign !== undefined)
        return {
          issues: [{ message: `content is required when the result carries '${foreign}' (not a tools/call result)`, path: ['content'] }],
        };
      const structured = body.structuredContent;
      if (structured !== undefined && (typeof structured !== 'object' || structured === null || Array.isArray(structured)))
        return { issues: [{ message: 'must be an object in the 2025-11-25 protocol', path: ['structuredContent'] }] };
    }
    const outcome = standard.validate(value, options);
    return outcome.issues === undefined ? outcome : { ...outcome, issues: outcome.issues.slice(0, RESULT_ISSUES) };
  };
  return { '~standard': { ...standard, validate } };
}

/** The era and protocol version a connected client agreed on. */
function eraOf(client: Client): { era?: 'modern' | 'legacy'; protocolVersion?: string } {
  const era = client.getProtocolEra();
  const protocolVersion = client.getNegotiatedProtocolVersion();
  return { ...(era === undefined ? {} : { era }), ...(protocolVersion === undefined ? {} : { protocolVersion }) };
}
