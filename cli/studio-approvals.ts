import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createRedactor, type ApprovalHandler, type BridgeEvent, type SecretInput } from '../core/index.js';
import { UsageError } from './usage-error.js';

/** The environment variable that attaches `run`, `task` and `serve` to a studio when `--studio` is not given. */
export const STUDIO_ENV = 'AGENT_SPACES_STUDIO';

/** The studio's API path for a call of an attached process (see studio/server/api-external-approvals.ts). */
const EXTERNAL_APPROVAL_PATH = '/api/approvals/external';

/** Largest request sent (the studio takes 1 MiB bodies); a call with larger arguments is denied here. */
const MAX_REQUEST_BYTES = 1024 * 1024 - 4096;

/** Largest answer line read from the studio. */
const MAX_LINE_BYTES = 64 * 1024;

/** A studio to send approval requests to: its address without the token, and the token. */
export interface StudioAddress {
  origin: string;
  token: string;
}

/** Who asks, as the studio's inbox shows it (the process id is added here). */
export interface StudioAsker {
  kind: 'run' | 'task' | 'serve';
  /** The space's folder (`--cwd`). */
  cwd: string;
  /** The program file, the task's words or the transport; cut to 200 characters. */
  detail?: string;
}

export interface StudioApprovals {
  handler: ApprovalHandler;
  /** The space's events: a call the bridge stopped waiting for (its run ended) leaves the studio's inbox. */
  onEvent(event: BridgeEvent): void;
  /** The host's secrets, once the space is open: they never leave this process. */
  useSecrets(secrets: readonly SecretInput[]): void;
  /** Withdraws every call still waiting (the space is closing). */
  close(): void;
  /** The studio's address without the token, for messages. */
  origin: string;
}

/**
 * Reads the address `agent-spaces studio` prints (`http://127.0.0.1:<port>/#token=<token>`). Only a
 * loopback http address is taken: the arguments of calls and the token never cross a network.
 */
export function parseStudioAddress(address: string, from = '--studio'): StudioAddress {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new UsageError(`${from} takes the address "agent-spaces studio" printed, like http://127.0.0.1:4500/#token=… (got "${address}")`);
  }
  const token = new URLSearchParams(url.hash.slice(1)).get('token') ?? '';
  if (url.protocol !== 'http:') throw new UsageError(`${from}: the studio's address starts with http:// (got "${url.protocol}")`);
  if (!isLoopbackHost(url.hostname))
    throw new UsageError(
      `${from}: the studio serves on loopback only; "${url.hostname}" is not a loopback address (127.0.0.1, [::1] or localhost)`,
    );
  if (token === '')
    throw new UsageError(`${from}: the address has no token: give the whole address "agent-spaces studio" printed, with its "#token=…"`);
  return { origin: url.origin, token };
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * An approval handler that asks the person in a studio's Approvals inbox: each call is posted to the
 * studio (with the token, arguments redacted of the host's secrets) and waits on the studio's answer
 * stream for as long as the person takes. It never approves by default: a studio that cannot be reached,
 * refuses, or goes away before anyone decides means the call is denied, with a reason naming the studio.
 */
export function createStudioApprovals(address: StudioAddress, asker: StudioAsker): StudioApprovals {
  let redact = createRedactor();
  const origin = { kind: asker.kind, pid: process.pid, cwd: asker.cwd, ...(asker.detail ? { detail: cut(asker.detail, 200) } : {}) };
  const waiting = new Set<AbortController>();
  const byCallId = new Map<string, AbortController>();

  const handler: ApprovalHandler = (request) => {
    const controller = new AbortController();
    waiting.add(controller);
    const { callId } = request;
    if (callId) byCallId.set(callId, controller);
    return ask(address, { request: { ...request, params: redact(request.params) }, origin }, controller.signal).finally(() => {
      waiting.delete(controller);
      if (callId) byCallId.delete(callId);
    });
  };

  return {
    handler,
    origin: address.origin,
    onEvent(event) {
      // Decided by the bridge without us (its run ended): stop waiting, so the call leaves the inbox.
      if (event.type === 'approval-decided') byCallId.get(event.callId)?.abort();
    },
    useSecrets(secrets) {
      redact = createRedactor({ secrets });
    },
    close() {
      for (const controller of waiting) controller.abort();
    },
  };
}

interface Denial {
  approved: false;
  reason: string;
}

/** Posts one call and waits for the decision; every failure is a denial that says what happened. */
function ask(address: StudioAddress, body: unknown, signal: AbortSignal): Promise<{ approved: boolean; reason: string }> {
  const where = `the studio at ${address.origin}`;
  const deny = (why: string): Denial => ({ approved: false, reason: `${why}, so the call was denied` });
  const text = JSON.stringify(body);
  if (Buffer.byteLength(text) > MAX_REQUEST_BYTES)
    return Promise.resolve(deny(`its arguments are too large (${Buffer.byteLength(text)} bytes) to send to ${where}`));
  return new Promise((resolve) => {
    let settled = false;
    const settle = (decision: { approved: boolean; reason: string }): void => {
      if (settled) return;
      settled = true;
      resolve(decision);
    };
    const request = httpRequest(
      `${address.origin}${EXTERNAL_APPROVAL_PATH}`,
      {
        method: 'POST',
        agent: false,
        signal,
        headers: {
          authorization: `Bearer ${address.token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        },
      },
      (response) => readAnswer(response, where, signal, settle, deny),
    );
    request.once('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) settle(deny('the run stopped waiting for the studio'));
      else settle(deny(`${where} could not be reached (${error.code ?? error.message})`));
    });
    request.end(text);
  });
}

function readAnswer(
  response: IncomingMessage,
  where: string,
  signal: AbortSignal,
  settle: (decision: { approved: boolean; reason: string }) => void,
  deny: (why: string) => Denial,
): void {
  let buffer = '';
  response.setEncoding('utf8');
  response.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > MAX_LINE_BYTES) {
      settle(deny(`${where} sent an answer longer than ${MAX_LINE_BYTES} bytes without a line end`));
      response.destroy();
      return;
    }
    if (response.statusCode !== 200) return;
    let end: number;
    while ((end = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      const answer = parseLine(line);
      if (answer?.type === 'decided') {
        const said = answer.reason ? `: ${answer.reason}` : '';
        settle(
          answer.approved === true
            ? { approved: true, reason: `approved in ${where}${said}` }
            : { approved: false, reason: `denied in ${where}${said}` },
        );
      }
    }
  });
  response.once('end', () => {
    if (response.statusCode !== 200) settle(deny(`${where} refused the request (HTTP ${response.statusCode}${refusalMessage(buffer)})`));
    else settle(deny(`${where} went away before anyone decided`));
  });
  response.once('error', () =>
    settle(signal.aborted ? deny('the run stopped waiting for the studio') : deny(`${where} went away before anyone decided`)),
  );
  response.once('close', () =>
    settle(signal.aborted ? deny('the run stopped waiting for the studio') : deny(`${where} went away before anyone decided`)),
  );
}

function parseLine(line: string): { type?: string; approved?: boolean; reason?: string } | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as { type?: string; approved?: boolean; reason?: string }) : undefined;
  } catch {
    return undefined;
  }
}

function refusalMessage(body: string): string {
  const message = (parseLine(body) as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? `: ${cut(message, 500)}` : '';
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The studio to attach to: `--studio`, else `$AGENT_SPACES_STUDIO` (unless `--approve` answers every
 * call already); undefined when neither is set. `--studio` with `--approve` is a usage error.
 */
export function studioAddressFrom(option: string | undefined, approve: string | undefined): StudioAddress | undefined {
  if (option !== undefined && approve !== undefined) throw new UsageError('--studio and --approve both decide approvals: give one of them');
  if (option !== undefined) return parseStudioAddress(option);
  const fromEnv = process.env[STUDIO_ENV];
  if (approve === undefined && fromEnv) return parseStudioAddress(fromEnv, `$${STUDIO_ENV}`);
  return undefined;
}
