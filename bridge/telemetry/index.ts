export { NOOP_TRACER } from './tracer.js';
export type { SpanAttributes, TraceSpan, Tracer } from './tracer.js';
export { loadTracer, resolveOtlpTarget } from './load-tracer.js';
export { createCallTracer } from './call-tracer.js';
