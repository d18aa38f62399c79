/**
 * What the bridge needs of tracing (the implementation is bridge/telemetry/, loaded only when
 * configured): a span per capability call, child of the span the call's context names, whose W3C
 * `traceparent` goes on to the server that performs the call (MCP `_meta`, an HTTP header).
 */
import type { CallerKind } from './callers.js';

/** One call's span. Attributes are names, outcomes, sizes and times: never arguments, results or secrets. */
export interface CallSpan {
  /** The span's W3C trace context, for the server performing the call; absent when not sampled. */
  readonly traceparent?: string;
  /** Time the call waited for a person's approval, in ms. */
  approvalWaited(ms: number): void;
  end(outcome: { ok: boolean; code?: string; sizeBytes?: number }): void;
}

export interface CallTracer {
  startCall(call: {
    capability: string;
    function: string;
    toolName?: string;
    runId?: string;
    caller?: CallerKind;
    parent?: string;
  }): CallSpan;
}

/** A W3C `traceparent` (version 00): `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, ids not all zero. */
export function parseTraceparent(value: unknown): { traceId: string; spanId: string; traceFlags: number } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value.trim());
  if (!match || /^0+$/.test(match[1] ?? '') || /^0+$/.test(match[2] ?? '')) return undefined;
  return { traceId: match[1] ?? '', spanId: match[2] ?? '', traceFlags: Number.parseInt(match[3] ?? '0', 16) };
}
