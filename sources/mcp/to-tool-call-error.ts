import { isConnectionClosed, isMcpError, isRequestTimeout, isSdkError } from './connect.js';
import { ToolCallError, errorMessage } from '../../core/index.js';
import type { InflightCall, LiveConnection } from './server-slot.js';

export interface FailedCall {
  capability: string;
  function: string;
  server: string;
  tool: string;
  timeoutMs: number;
  maxTotalTimeoutMs: number;
  inflight: InflightCall;
  live: LiveConnection;
}

/** Says, as a `ToolCallError`, why a `tools/call` on a live connection failed. */
export function toToolCallError(error: unknown, call: FailedCall): ToolCallError {
  const target = { capability: call.capability, function: call.function };
  const about = `tool "${call.tool}" of MCP server "${call.server}"`;
  const details = { server: call.server, tool: call.tool };
  const failure = call.inflight.failure;

  if (failure?.kind === 'cancelled') {
    return new ToolCallError('CANCELLED', `call to ${about} was cancelled; the server was sent notifications/cancelled`, target, {
      details,
      cause: error,
    });
  }
  if (failure?.kind === 'denied') return failure.error;
  if (failure?.kind === 'malformed') {
    return new ToolCallError(
      'TOOL_FAILED',
      `MCP server "${call.server}" answered tool "${call.tool}" with a malformed message (${failure.detail}); a server must write only JSON-RPC messages to stdout`,
      target,
      { details: { ...details, malformed: failure.detail }, cause: error },
    );
  }
  if (!call.live.alive || isConnectionClosed(error)) {
    const { connection } = call.live;
    const exit = connection.exitStatus?.();
    // What the server wrote to stderr may quote its secrets: it goes to the host log, not to the program.
    const logged = connection.stderrTail().trim() !== '';
    const how = connection.transport === 'stdio' ? `exited${exit === undefined ? '' : ` (${exit})`}` : 'closed the connection';
    return new ToolCallError(
      'SERVER_UNAVAILABLE',
      `MCP server "${call.server}" ${how} during the call to tool "${call.tool}"; it will be restarted on the next call${logged ? '; see the host log for its stderr' : ''}`,
      target,
      { details: { ...details, ...(exit === undefined ? {} : { exit }) }, cause: error },
    );
  }
  if (isRequestTimeout(error)) {
    const total = errorMessage(error).includes('Maximum total timeout');
    const message = total
      ? `${about} did not finish within its total cap of ${call.maxTotalTimeoutMs} ms (progress notifications extend the timeout only up to maxTotalTimeoutMs); the call was cancelled`
      : call.inflight.askedPerson === true
        ? `${about} did not answer within ${call.timeoutMs} ms, which includes the time its question to a person took (a 2025-era server asks while the call's clock runs); the call was cancelled (raise timeoutMs for this server)`
        : `${about} did not answer within ${call.timeoutMs} ms; the call was cancelled (raise timeoutMs for this server if the tool is slow, or have it send progress notifications)`;
    return new ToolCallError('TIMEOUT', message, target, {
      details: { ...details, timeoutMs: call.timeoutMs, maxTotalTimeoutMs: call.maxTotalTimeoutMs },
      cause: error,
    });
  }
  if (isInvalidStructuredContent(error)) {
    return new ToolCallError(
      'INVALID_RESULT',
      `${about} returned a result that does not match its output schema: ${errorMessage(error)}`,
      target,
      { details, cause: error },
    );
  }
  if (isSchemaError(error)) {
    return new ToolCallError(
      'TOOL_FAILED',
      `MCP server "${call.server}" returned an invalid result for tool "${call.tool}": ${summarizeIssues(error)}`,
      target,
      { details, cause: error },
    );
  }
  if (isSdkError(error) && error.code === 'INVALID_RESULT') {
    return new ToolCallError(
      'TOOL_FAILED',
      `MCP server "${call.server}" returned an invalid result for tool "${call.tool}": ${describeInvalidResult(error.message)}`,
      target,
      { details, cause: error },
    );
  }
  if (isMcpError(error)) {
    return new ToolCallError('TOOL_FAILED', `MCP server "${call.server}" failed tool "${call.tool}": ${error.message}`, target, {
      details: { ...details, rpcCode: error.code, data: error.data },
      cause: error,
    });
  }
  return new ToolCallError('TOOL_FAILED', `call to ${about} failed: ${errorMessage(error)}`, target, { details, cause: error });
}

/** The SDK's own check of `structuredContent` against the tool's output schema. */
function isInvalidStructuredContent(error: unknown): boolean {
  if (!isMcpError(error)) return false;
  return /Structured content does not match|Failed to validate structured content|did not return structured content/.test(error.message);
}

/**
 * The SDK's "Invalid result for tools/call: …" in a line: its issues as `path: message` (given as JSON
 * by its own result check, as text by the one the pool passes it, see connect.ts `toolCaller`).
 */
function describeInvalidResult(message: string): string {
  const start = message.indexOf('[');
  if (start >= 0) {
    try {
      const issues: unknown = JSON.parse(message.slice(start));
      if (Array.isArray(issues)) return summarizeIssues(Object.assign(new Error(message), { issues }));
    } catch {
      // Not a list of issues: the text below.
    }
  }
  const prefix = /^Invalid result for [\w/]+: /.exec(message);
  return prefix === null ? message : message.slice(prefix[0].length);
}

function isSchemaError(error: unknown): error is Error & { issues: unknown[] } {
  return error instanceof Error && 'issues' in error && Array.isArray(error.issues);
}

function summarizeIssues(error: Error & { issues: unknown[] }): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    if (typeof issue !== 'object' || issue === null) return String(issue);
    const path = 'path' in issue && Array.isArray(issue.path) ? issue.path.join('.') : '';
    const message = 'message' in issue && typeof issue.message === 'string' ? issue.message : JSON.stringify(issue);
    return path === '' ? message : `${path}: ${message}`;
  });
  return parts.join('; ');
}
