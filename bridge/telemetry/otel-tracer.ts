import { parseTraceparent } from '../../core/index.js';
import { createCallTracer } from './call-tracer.js';
import type { SpanAttributes, TraceSpan, Tracer } from './tracer.js';

export interface OtlpOptions {
  /** The OTLP/HTTP traces endpoint, e.g. `http://localhost:4318/v1/traces`. */
  url: string;
  headers?: Record<string, string>;
  serviceName: string;
}

/**
 * A tracer over the OpenTelemetry SDK, exporting over OTLP/HTTP (JSON). The SDK is imported here, when
 * a space is configured to trace, never with the package. It uses its own provider (no global one is
 * registered): parents are passed explicitly as `traceparent` text, so no context manager is needed.
 */
export async function createOtelTracer(options: OtlpOptions): Promise<Tracer> {
  const [api, sdk, resources, exporterModule] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const exporter = new exporterModule.OTLPTraceExporter({ url: options.url, ...(options.headers ? { headers: options.headers } : {}) });
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 })],
  });
  const otel = provider.getTracer('agent-spaces');
  const kinds = { internal: api.SpanKind.INTERNAL, client: api.SpanKind.CLIENT, server: api.SpanKind.SERVER };

  const startSpan = (
    name: string,
    spanOptions: { parent?: string; kind?: 'internal' | 'client' | 'server'; attributes?: SpanAttributes } = {},
  ): TraceSpan => {
    const parent = parseTraceparent(spanOptions.parent);
    const context = parent === undefined ? api.ROOT_CONTEXT : api.trace.setSpanContext(api.ROOT_CONTEXT, { ...parent, isRemote: true });
    const span = otel.startSpan(
      name,
      { kind: kinds[spanOptions.kind ?? 'internal'], ...(spanOptions.attributes ? { attributes: spanOptions.attributes } : {}) },
      context,
    );
    const own = span.spanContext();
    const sampled = (own.traceFlags & api.TraceFlags.SAMPLED) === api.TraceFlags.SAMPLED;
    let ended = false;
    return {
      traceparent: `00-${own.traceId}-${own.spanId}-${sampled ? '01' : '00'}`,
      setAttributes: (attributes) => void span.setAttributes(attributes),
      end(error) {
        if (ended) return;
        ended = true;
        if (error !== undefined) {
          span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message });
          if (error.code !== undefined) span.setAttribute('error.type', error.code);
        }
        span.end();
      },
    };
  };
  return {
    enabled: true,
    startSpan,
    calls: createCallTracer({ startSpan }),
    async shutdown() {
      await provider.shutdown().catch(() => undefined);
    },
  };
}
