import type { ResolvedConfig } from '../../config/index.js';
import { NOOP_TRACER, type Tracer } from './tracer.js';

/**
 * Where spans go, from the config's `telemetry.otlp` or else the standard variables
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`; headers from
 * `OTEL_EXPORTER_OTLP_TRACES_HEADERS` / `OTEL_EXPORTER_OTLP_HEADERS`; `OTEL_SERVICE_NAME`). Nothing
 * configured, `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`: undefined (no tracing).
 */
export function resolveOtlpTarget(
  config: Pick<ResolvedConfig, 'telemetry'>,
  env: Record<string, string | undefined> = process.env,
): { url: string; headers: Record<string, string>; serviceName: string } | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true' || env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const serviceName = config.telemetry?.serviceName ?? env.OTEL_SERVICE_NAME ?? 'agent-spaces';
  const configured = config.telemetry?.otlp;
  if (configured !== undefined) {
    return { url: tracesUrl(configured.endpoint), headers: configured.headers ?? {}, serviceName };
  }
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!traces && !base) return undefined;
  const headers = { ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS), ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) };
  return { url: traces || tracesUrl(base ?? ''), headers, serviceName };
}

/** The tracer of a space: the OpenTelemetry SDK, imported only when tracing is configured. */
export async function loadTracer(
  config: Pick<ResolvedConfig, 'telemetry'>,
  env: Record<string, string | undefined> = process.env,
): Promise<Tracer> {
  const target = resolveOtlpTarget(config, env);
  if (target === undefined) return NOOP_TRACER;
  const { createOtelTracer } = await import('./otel-tracer.js');
  return createOtelTracer(target);
}

/** An OTLP base endpoint gets the signal's path; one that already names it is kept. */
function tracesUrl(endpoint: string): string {
  return /\/v1\/traces\/?$/.test(endpoint) ? endpoint : `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/** `key1=value1,key2=value2` (values URL-encoded), as the OTLP exporter variables write headers. */
function parseHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    try {
      headers[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      headers[key] = pair.slice(at + 1).trim();
    }
  }
  return headers;
}
