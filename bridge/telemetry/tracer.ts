import type { CallTracer } from '../../core/index.js';

export type SpanAttributes = Record<string, string | number | boolean>;

/** One span of a task, a model step, a code run or a call. */
export interface TraceSpan {
  /** Its W3C trace context, to make children elsewhere (a code run's calls, a server); absent when not traced. */
  readonly traceparent: string | undefined;
  setAttributes(attributes: SpanAttributes): void;
  /** Ends the span; with an error, its status is ERROR and `error.type` the code. */
  end(error?: { code?: string; message: string }): void;
}

/**
 * The tracing of a space: spans of tasks, model steps, code runs and capability calls. The default does
 * nothing and loads nothing; with `telemetry.otlp` (or the standard `OTEL_EXPORTER_OTLP_*` variables)
 * spans are exported with the OpenTelemetry SDK over OTLP/HTTP (see `loadTracer`).
 */
export interface Tracer {
  readonly enabled: boolean;
  startSpan(name: string, options?: { parent?: string; kind?: 'internal' | 'client' | 'server'; attributes?: SpanAttributes }): TraceSpan;
  /** The bridge's view: one span per capability call. */
  readonly calls: CallTracer;
  /** Exports what is left; waits at most a few seconds. */
  shutdown(): Promise<void>;
}

const NOOP_SPAN: TraceSpan = { traceparent: undefined, setAttributes: () => undefined, end: () => undefined };

export const NOOP_TRACER: Tracer = {
  enabled: false,
  startSpan: () => NOOP_SPAN,
  calls: { startCall: () => ({ approvalWaited: () => undefined, end: () => undefined }) },
  shutdown: async () => undefined,
};
