/**
 * OpenTelemetry (issue 27): a task traced end to end and exported over OTLP/HTTP to a real receiver
 * started here on loopback (JSON encoding, decoded and checked as a tree): the caller's span → the task
 * → its steps → the model request and the code run → one span per capability call, over a real MCP server
 * (stdio) and an OpenAPI service (HTTP), each of which saw its call's span as `traceparent`. No argument,
 * result or secret is in any span; the exporter's configured header reached the receiver.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { executeTask } from '../../planner/index.js';
import { serveSpace } from '../../server/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { REPO } from '../support/example-space.js';
import { callReply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { makeTempDir } from '../support/temp-dir.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  status?: { code?: number };
}

const OTLP_TOKEN = 'otlp-secret-token-7f3a9c2b1d';
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const ARGUMENT_MARK = 'argument-text-never-in-a-span';

let receiver: Server;
let receiverUrl: string;
const received: OtlpSpan[] = [];
const authorizations: string[] = [];
let api: Server;
const apiSaw: string[] = [];
let model: ScriptedModelServer;
let space: Space;
let root: string;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** OTLP/JSON attribute values: `{stringValue}`, `{intValue}` (a string), `{boolValue}`, `{doubleValue}`. */
function attributeValue(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('boolValue' in value) return value.boolValue;
  if ('doubleValue' in value) return value.doubleValue;
  return value;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    void readBody(request).then((text) => {
      authorizations.push(String(request.headers.authorization ?? ''));
      if (request.method === 'POST' && request.url === '/v1/traces' && /json/.test(String(request.headers['content-type']))) {
        const body = JSON.parse(text) as {
          resourceSpans: {
            scopeSpans: { spans: (Omit<OtlpSpan, 'attributes'> & { attributes?: { key: string; value: Record<string, unknown> }[] })[] }[];
          }[];
        };
        for (const resource of body.resourceSpans) {
          for (const scope of resource.scopeSpans) {
            for (const span of scope.spans) {
              received.push({
                ...span,
                attributes: Object.fromEntries((span.attributes ?? []).map((entry) => [entry.key, attributeValue(entry.value)])),
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  receiverUrl = await listen(receiver);

  api = createServer((request, response) => {
    apiSaw.push(String(request.headers.traceparent ?? 'none'));
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ id: 1, name: 'widget' }]));
  });
  const apiUrl = await listen(api);

  root = await makeTempDir('telemetry');
  await writeFile(
    path.join(root, 'items.json'),
    JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'Items', version: '1.0.0' },
      servers: [{ url: apiUrl }],
      paths: {
        '/items': {
          get: {
            operationId: 'listItems',
            parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
            responses: {
              '200': {
                description: 'the items',
                content: {
                  'application/json': {
                    schema: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } },
                  },
                },
              },
            },
          },
        },
      },
    }),
  );
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify({
      capabilities: [],
      mcpServers: { traced: { command: process.execPath, args: [path.join(REPO, 'test/fixtures/traceparent-mcp-server.mjs')], cwd: REPO } },
      openapi: { items: { spec: 'items.json', baseUrl: apiUrl } },
      telemetry: {
        otlp: { endpoint: receiverUrl, headers: { authorization: `Bearer \${OTEL_TEST_TOKEN}` } },
        serviceName: 'telemetry-test',
      },
    }),
  );
  process.env.OTEL_TEST_TOKEN = OTLP_TOKEN;
  space = await createSpace({ cwd: root });
  expect((await space.build()).errors).toEqual([]);

  const program = [
    "import { seenTrace } from '@capabilities/mcp-traced';",
    "import { listItems } from '@capabilities/openapi-items';",
    `const [mcp, items] = await Promise.all([seenTrace({}), listItems({ q: '${ARGUMENT_MARK}' })]);`,
    'export default { mcp: mcp.traceparent, items: items.length };',
  ].join('\n');
  model = await startScriptedModelServer([
    callReply('run_code', { code: program }, { prompt_tokens: 120, completion_tokens: 40 }),
    callReply('finish', { summary: 'done' }, { prompt_tokens: 200, completion_tokens: 10 }),
  ]);
}, 120_000);

afterAll(async () => {
  await space?.close();
  await model?.close();
  receiver?.closeAllConnections();
  receiver?.close();
  api?.closeAllConnections();
  api?.close();
  delete process.env.OTEL_TEST_TOKEN;
});

describe('traces over OTLP/HTTP', () => {
  it('exports the span tree of a task, and propagates traceparent to the MCP server and the HTTP service', async () => {
    const result = await executeTask('Read the traced things', {
      space,
      model: { baseURL: model.baseURL, model: 'scripted-model', apiKey: 'test-key' },
      trace: false,
      runDir: await makeTempDir('telemetry-run'),
      traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
    });
    expect(result.success, result.error ?? '').toBe(true);
    const raw = result.rawOutputs.find((output) => output.kind === 'code-run') as { value?: { mcp?: string } } | undefined;
    await space.close(); // flushes the exporter's batch

    // Every span is in the caller's trace.
    expect(received.length).toBeGreaterThan(0);
    expect(new Set(received.map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE]));
    const byName = (name: string) => received.filter((span) => span.name === name);
    const one = (name: string): OtlpSpan => {
      const found = byName(name);
      expect(found, name).toHaveLength(1);
      return found[0] as OtlpSpan;
    };
    const task = one('invoke_agent agent-spaces');
    expect(task.parentSpanId).toBe(CALLER_SPAN);
    expect(task.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.usage.input_tokens': 320,
      'gen_ai.usage.output_tokens': 50,
    });
    const step1 = one('agent_spaces.step 1');
    const step2 = one('agent_spaces.step 2');
    expect([step1.parentSpanId, step2.parentSpanId]).toEqual([task.spanId, task.spanId]);
    const chats = byName('chat scripted-model');
    expect(chats.map((chat) => chat.parentSpanId).sort()).toEqual([step1.spanId, step2.spanId].sort());
    expect(chats.find((chat) => chat.parentSpanId === step1.spanId)?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 40,
    });
    const run = one('execute_code');
    expect(run.parentSpanId).toBe(step1.spanId);
    expect(run.attributes).toMatchObject({ 'agent_spaces.calls': 2, 'agent_spaces.success': true });
    const mcpCall = one('execute_tool mcp-traced.seenTrace');
    const httpCall = one('execute_tool openapi-items.listItems');
    for (const call of [mcpCall, httpCall]) {
      expect(call.parentSpanId).toBe(run.spanId);
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'agent_spaces.caller': 'code',
        'agent_spaces.outcome': 'ok',
      });
      expect(call.attributes['agent_spaces.result_bytes']).toBeGreaterThan(0);
    }

    // The servers saw their own call's span as the parent of whatever they do.
    expect(raw?.value?.mcp).toBe(`00-${CALLER_TRACE}-${mcpCall.spanId}-01`);
    expect(apiSaw).toEqual([`00-${CALLER_TRACE}-${httpCall.spanId}-01`]);

    // No argument and no secret in any span; the exporter's header (a secret of the config) reached the receiver only.
    const exported = JSON.stringify(received);
    expect(exported).not.toContain(ARGUMENT_MARK);
    expect(exported).not.toContain(OTLP_TOKEN);
    expect(exported).not.toContain('test-key');
    expect(authorizations.every((value) => value === `Bearer ${OTLP_TOKEN}`)).toBe(true);
  }, 120_000);

  it('continues the trace of a serve request (_meta.traceparent): call_tool and execute_code', async () => {
    const trace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const parent = '1122334455667788';
    const running = await serveSpace({ cwd: root, http: { port: 0 }, mode: 'both' });
    const client = new Client({ name: 'traced-client', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url ?? '')));
      const meta = { traceparent: `00-${trace}-${parent}-01` };
      const called = await client.callTool({ name: 'call_tool', arguments: { name: 'mcp-traced.seenTrace' }, _meta: meta });
      expect(called.isError).toBeFalsy();
      const ran = await client.callTool({
        name: 'execute_code',
        arguments: { code: "import { listItems } from '@capabilities/openapi-items';\nexport default (await listItems({})).length;" },
        _meta: meta,
      });
      expect(ran.structuredContent).toMatchObject({ success: true, result: 1 });
    } finally {
      await client.close();
      await running.close(); // flushes the exporter
    }
    const spans = received.filter((span) => span.traceId === trace);
    const direct = spans.find((span) => span.name === 'execute_tool mcp-traced.seenTrace');
    expect(direct).toMatchObject({ parentSpanId: parent, attributes: { 'agent_spaces.caller': 'direct', 'agent_spaces.outcome': 'ok' } });
    const run = spans.find((span) => span.name === 'execute_code');
    expect(run?.parentSpanId).toBe(parent);
    const call = spans.find((span) => span.name === 'execute_tool openapi-items.listItems');
    expect(call?.parentSpanId).toBe(run?.spanId);
    expect(apiSaw.at(-1)).toBe(`00-${trace}-${call?.spanId}-01`);
  }, 120_000);

  it('records the time a call waited for approval, and a denial as its outcome', async () => {
    const approvalRoot = await makeTempDir('telemetry-approval');
    await writeFile(path.join(approvalRoot, 'items.json'), await readFile(path.join(root, 'items.json'), 'utf8'));
    const config = JSON.parse(await readFile(path.join(root, 'agent-spaces.config.json'), 'utf8')) as {
      openapi: { items: Record<string, unknown> };
    };
    await writeFile(
      path.join(approvalRoot, 'agent-spaces.config.json'),
      JSON.stringify({
        capabilities: [],
        openapi: { items: { ...config.openapi.items, requireApproval: true } },
        telemetry: { otlp: { endpoint: receiverUrl } },
      }),
    );
    const decisions = [true, false];
    const gated = await createSpace({
      cwd: approvalRoot,
      approvalHandler: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { approved: decisions.shift() ?? false, reason: 'not now' };
      },
    });
    const trace = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    try {
      expect((await gated.build()).errors).toEqual([]);
      const run = await gated.run(
        "import { listItems } from '@capabilities/openapi-items';\nconst first = await listItems({});\ntry { await listItems({}); } catch (error) { return [first.length, (error as any).code]; }",
        { check: false, traceparent: `00-${trace}-aaaaaaaaaaaaaaaa-01` },
      );
      expect(run).toMatchObject({ success: true, result: [1, 'APPROVAL_DENIED'] });
    } finally {
      await gated.close();
    }
    const calls = received.filter((span) => span.traceId === trace && span.name === 'execute_tool openapi-items.listItems');
    expect(calls.map((span) => span.attributes['agent_spaces.outcome']).sort()).toEqual(['APPROVAL_DENIED', 'ok']);
    for (const call of calls) expect(call.attributes['agent_spaces.approval_wait_ms']).toBeGreaterThan(0);
    expect(calls.find((span) => span.attributes['agent_spaces.outcome'] === 'APPROVAL_DENIED')?.status?.code).toBe(2);
  }, 120_000);
});
