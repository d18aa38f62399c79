import type { ServerResponse } from 'node:http';
import type { ApprovalRequest } from '../../core/index.js';
import { MAX_EXTERNAL_APPROVALS } from './approval-inbox.js';
import type { StudioContext } from './studio-context.js';
import { isObject, isString, StudioError } from './studio-error.js';
import type { AttachedOrigin } from './studio-events.js';

/** The path an attached process (`run`, `task`, `serve` with `--studio`) posts a waiting call to. */
export const EXTERNAL_APPROVAL_PATH = '/api/approvals/external';

/** One line of the answer's stream (newline-delimited JSON). */
export type ExternalApprovalLine = { type: 'waiting'; id: string } | { type: 'decided'; approved: boolean; reason?: string };

/**
 * Puts an attached process's call in the inbox and answers with a stream that stays open until a
 * person decides: first `{"type":"waiting","id":…}`, then `{"type":"decided",…}` and the end. No timer
 * ends it (a person may take an hour). When the asker hangs up first (its run ended, it was stopped),
 * the call leaves the inbox. Past `MAX_EXTERNAL_APPROVALS` waiting calls, the answer is 429.
 */
export function askExternalApproval(context: StudioContext, body: unknown, response: ServerResponse): void {
  const request = readRequest(body);
  const origin = readOrigin(body);
  const asked = context.approvals.askExternal(request, origin);
  if (!asked) {
    throw new StudioError(
      'STUDIO_TOO_MANY',
      `the studio's inbox already holds ${MAX_EXTERNAL_APPROVALS} calls of attached processes waiting for a decision: decide some of them first`,
    );
  }
  response.writeHead(200, {
    'content-type': 'application/x-ndjson; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  const send = (line: ExternalApprovalLine): void => void response.write(`${JSON.stringify(line)}\n`);
  send({ type: 'waiting', id: asked.id });
  let decided = false;
  response.once('close', () => {
    if (!decided)
      context.approvals.withdraw(asked.id, `${origin.kind} (pid ${origin.pid}) stopped waiting: its run ended or it was stopped`);
  });
  void asked.decision.then((decision) => {
    decided = true;
    if (response.destroyed) return;
    send({ type: 'decided', approved: decision.approved, ...(decision.reason ? { reason: decision.reason } : {}) });
    response.end();
  });
}

function text(value: unknown, name: string, max: number): string {
  if (!isString(value) || value.length > max)
    throw new StudioError('STUDIO_BAD_REQUEST', `request body: "${name}" must be a string of at most ${max} characters`);
  return value;
}

function readRequest(body: unknown): ApprovalRequest {
  const request = isObject(body) && isObject(body.request) ? body.request : undefined;
  if (!request)
    throw new StudioError(
      'STUDIO_BAD_REQUEST',
      'request body: "request" must be the approval request ({ capability, function, params, message, timestamp })',
    );
  return {
    ...(request.runId !== undefined ? { runId: text(request.runId, 'request.runId', 200) } : {}),
    capability: text(request.capability, 'request.capability', 200),
    function: text(request.function, 'request.function', 200),
    params: request.params ?? {},
    message: text(request.message, 'request.message', 4000),
    timestamp: text(request.timestamp, 'request.timestamp', 64),
  };
}

function readOrigin(body: unknown): AttachedOrigin {
  const origin = isObject(body) && isObject(body.origin) ? body.origin : undefined;
  const kind = origin?.kind;
  if (!origin || (kind !== 'run' && kind !== 'task' && kind !== 'serve'))
    throw new StudioError('STUDIO_BAD_REQUEST', 'request body: "origin.kind" must be "run", "task" or "serve"');
  if (!Number.isInteger(origin.pid) || (origin.pid as number) <= 0)
    throw new StudioError('STUDIO_BAD_REQUEST', 'request body: "origin.pid" must be a process id');
  return {
    kind,
    pid: origin.pid as number,
    cwd: text(origin.cwd, 'origin.cwd', 4096),
    ...(origin.detail !== undefined ? { detail: text(origin.detail, 'origin.detail', 200) } : {}),
  };
}
