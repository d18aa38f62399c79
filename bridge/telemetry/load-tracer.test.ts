import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NOOP_TRACER, loadTracer, resolveOtlpTarget } from './index.js';

describe('resolveOtlpTarget', () => {
  it('takes the config first, adding the traces path to a base endpoint', () => {
    expect(
      resolveOtlpTarget(
        { telemetry: { otlp: { endpoint: 'http://collector:4318', headers: { authorization: 'Bearer x' } } } },
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' },
      ),
    ).toEqual({
      url: 'http://collector:4318/v1/traces',
      headers: { authorization: 'Bearer x' },
      serviceName: 'agent-spaces',
    });
    expect(resolveOtlpTarget({ telemetry: { otlp: { endpoint: 'https://otlp.example.com/v1/traces' }, serviceName: 'desk' } }, {})).toEqual(
      { url: 'https://otlp.example.com/v1/traces', headers: {}, serviceName: 'desk' },
    );
  });

  it('reads the standard OTEL_* variables, the traces endpoint as it is', () => {
    expect(
      resolveOtlpTarget(
        {},
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318/',
          OTEL_EXPORTER_OTLP_HEADERS: 'x-team=agents,api-key=a%3Db',
          OTEL_SERVICE_NAME: 'svc',
        },
      ),
    ).toEqual({
      url: 'http://localhost:4318/v1/traces',
      headers: { 'x-team': 'agents', 'api-key': 'a=b' },
      serviceName: 'svc',
    });
    expect(
      resolveOtlpTarget(
        {},
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/traces',
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'k=v',
        },
      ),
    ).toMatchObject({ url: 'http://b:9999/traces', headers: { k: 'v' } });
  });

  it('is off with nothing configured, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', async () => {
    expect(resolveOtlpTarget({}, {})).toBeUndefined();
    expect(resolveOtlpTarget({ telemetry: { otlp: { endpoint: 'http://c:4318' } } }, { OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(resolveOtlpTarget({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(await loadTracer({}, {})).toBe(NOOP_TRACER);
  });
});

describe('the OpenTelemetry SDK', () => {
  it('is never imported statically: only otel-tracer.ts loads it, inside the function a configured space calls', () => {
    const folder = new URL('.', import.meta.url);
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))) {
      const text = readFileSync(new URL(file, folder), 'utf8');
      expect(text, file).not.toMatch(/^import[^;]*from '@opentelemetry\//m);
      if (file !== 'otel-tracer.ts') expect(text, file).not.toContain("import('@opentelemetry/");
    }
    expect(readFileSync(new URL('load-tracer.ts', folder), 'utf8')).toContain("await import('./otel-tracer.js')");
  });
});
