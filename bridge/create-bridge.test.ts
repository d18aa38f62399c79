import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolCallError, defineFunction, defineTool, toWireError } from '../core/index.js';
import type { ApprovalHandler, ApprovalRequest, BridgeEvent, CallContext, CapabilitySpec } from '../core/index.js';
import type { Backend } from '../core/index.js';
import type { BridgeOptions } from './bridge.js';
import { createBridge } from './create-bridge.js';
import { createInProcessBackend } from '../core/index.js';
import { capabilitySpecFromTool } from './test-support/capability-spec-from-tool.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';

const everything = defineTool({
  name: 'everything',
  functions: {
    'get-sum': defineFunction({
      description: 'Adds two numbers.',
      parameters: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      returns: { type: 'number' },
      handler: ({ a, b }) => a + b,
    }),
  },
});

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const crm = defineTool({
  name: 'crm',
  functions: {
    search: defineFunction({
      parameters: z.object({ query: z.string(), limit: z.number().int().default(10), token: z.string().optional() }),
      returns: z.object({ query: z.string(), limit: z.number() }),
      handler: ({ query, limit }) => ({ query, limit }),
    }),
    createTicket: defineFunction({
      parameters: {
        type: 'object',
        properties: { customerId: { type: 'string' }, priority: { type: 'string', enum: ['low', 'high'] } },
        required: ['customerId', 'priority'],
      },
      requiresApproval: true,
      approvalMessage: (params) => `Create ${params.priority} ticket for customer ${params.customerId}?`,
      handler: ({ customerId }) => ({ id: `T-${customerId}` }),
    }),
    deleteCustomer: defineFunction({
      parameters: { type: 'object', properties: { customerId: { type: 'string' }, apiKey: { type: 'string' } }, required: ['customerId'] },
      requiresApproval: true,
      approvalMessage: 'Delete customer {customerId} ({unknown})?',
      handler: () => ({ deleted: true }),
    }),
    archive: defineFunction({
      parameters: { type: 'object', properties: { customerId: { type: 'string' } } },
      requiresApproval: true,
      handler: () => 'archived',
    }),
    broken: defineFunction({
      handler: (): never => {
        throw new Error('database is down');
      },
    }),
    badResult: defineFunction({
      returns: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } }, required: ['items'] },
      handler: () => ({ items: ['a', 3] }) as unknown as { items: string[] },
    }),
    big: defineFunction({
      parameters: { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'] },
      handler: ({ length }) => 'x'.repeat(length),
    }),
    slow: defineFunction({
      parameters: { type: 'object', properties: { gate: { type: 'string' } }, required: ['gate'] },
      handler: async ({ gate }) => {
        await gates.get(gate)?.promise;
        return gate;
      },
    }),
  },
});
const gates = new Map<string, Deferred<void>>();

function specs(): CapabilitySpec[] {
  const sum = capabilitySpecFromTool(everything, 'mcp-everything');
  sum.functions = sum.functions.map((spec) => ({ ...spec, name: 'getSum' }));
  return [
    sum,
    capabilitySpecFromTool(crm),
    { ...capabilitySpecFromTool(crm, 'limited'), config: { rateLimit: { requests: 2, period: 'minute' } } },
  ];
}

function setup(options: Partial<BridgeOptions> = {}) {
  const events: BridgeEvent[] = [];
  const backend = createInProcessBackend({ 'mcp-everything': everything, crm, limited: crm });
  const bridge = createBridge({
    capabilities: specs(),
    backends: { 'mcp-everything': backend, crm: backend, limited: backend },
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { bridge, events };
}

const context = (signal: AbortSignal = new AbortController().signal): CallContext => ({ runId: 'run-1', signal });

describe('createBridge: resolve and validate', () => {
  it('performs a call through the in-process backend', async () => {
    const { bridge } = setup();
    await expect(bridge.handle({ capability: 'mcp-everything', function: 'getSum', args: { a: 2, b: 3 } }, context())).resolves.toBe(5);
    // The original tool name is accepted too.
    await expect(bridge.handle({ capability: 'mcp-everything', function: 'get-sum', args: { a: 1, b: 1 } }, context())).resolves.toBe(2);
  });

  it('names the argument, the tool and the capability when an argument has the wrong type', async () => {
    const { bridge } = setup();
    const error = await toolCallErrorOf(
      bridge.handle({ capability: 'mcp-everything', function: 'getSum', args: { a: '2', b: 3 } }, context()),
    );
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).toBe('tool "get-sum" of capability "mcp-everything": argument "a" must be number (got "2")');
    expect(toWireError(error)).toMatchObject({
      code: -32602,
      data: { code: 'INVALID_ARGUMENTS', capability: 'mcp-everything', function: 'getSum' },
    });
  });

  it('lists every problem with the arguments at once', async () => {
    const { bridge } = setup();
    const error = await toolCallErrorOf(
      bridge.handle({ capability: 'mcp-everything', function: 'getSum', args: { a: '2', c: 1 } }, context()),
    );
    expect(error.message).toBe(
      'tool "get-sum" of capability "mcp-everything": argument "b" is required; argument "c" is not allowed (no such property); argument "a" must be number (got "2")',
    );
    const enumError = await toolCallErrorOf(
      bridge.handle({ capability: 'crm', function: 'createTicket', args: { customerId: 'c1', priority: 'urgent' } }, context()),
    );
    expect(enumError.message).toBe(
      'tool "createTicket" of capability "crm": argument "priority" must be one of "low", "high" (got "urgent")',
    );
    const rootError = await toolCallErrorOf(bridge.handle({ capability: 'mcp-everything', function: 'getSum', args: [1, 2] }, context()));
    expect(rootError.message).toBe('tool "get-sum" of capability "mcp-everything": arguments must be object (got [1,2])');
  });

  it('lists the available modules for an unknown capability and the functions for an unknown function', async () => {
    const { bridge } = setup();
    const unknownCapability = await toolCallErrorOf(bridge.handle({ capability: 'wether', function: 'get', args: {} }, context()));
    expect(unknownCapability.code).toBe('UNKNOWN_CAPABILITY');
    expect(unknownCapability.message).toBe('unknown capability "wether": available modules are crm, limited, mcp-everything');
    const unknownFunction = await toolCallErrorOf(
      bridge.handle({ capability: 'mcp-everything', function: 'getProduct', args: {} }, context()),
    );
    expect(unknownFunction.code).toBe('UNKNOWN_FUNCTION');
    expect(unknownFunction.message).toBe('capability "mcp-everything" has no function "getProduct": its functions are getSum');
  });

  it('applies zod defaults before the handler runs', async () => {
    const { bridge } = setup();
    await expect(bridge.handle({ capability: 'crm', function: 'search', args: { query: 'acme' } }, context())).resolves.toEqual({
      query: 'acme',
      limit: 10,
    });
  });

  it('reports a throwing handler as TOOL_FAILED with its message', async () => {
    const { bridge } = setup();
    const error = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'broken', args: {} }, context()));
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toBe('tool "broken" of capability "crm" failed: database is down');
  });

  it('fails SERVER_UNAVAILABLE when no backend serves a capability, and after close', async () => {
    let closed = 0;
    const backend: Backend = { call: async () => 'ok', close: async () => void (closed += 1) };
    const bridge = createBridge({ capabilities: specs(), backends: { crm: backend, limited: backend } });
    const missing = await toolCallErrorOf(
      bridge.handle({ capability: 'mcp-everything', function: 'getSum', args: { a: 1, b: 2 } }, context()),
    );
    expect(missing.code).toBe('SERVER_UNAVAILABLE');
    expect(missing.message).toContain('register one for module "mcp-everything"');
    await bridge.close();
    expect(closed).toBe(1);
    expect((await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'broken', args: {} }, context()))).code).toBe(
      'SERVER_UNAVAILABLE',
    );
  });
});

describe('createBridge: approvals', () => {
  it('asks with the message computed by the tool, then performs the call', async () => {
    const requests: ApprovalRequest[] = [];
    const { bridge, events } = setup({ approvalHandler: (request) => (requests.push(request), true) });
    await expect(
      bridge.handle({ capability: 'crm', function: 'createTicket', args: { customerId: 'c1', priority: 'high' } }, context()),
    ).resolves.toEqual({ id: 'T-c1' });
    expect(requests).toMatchObject([
      {
        capability: 'crm',
        function: 'createTicket',
        params: { customerId: 'c1', priority: 'high' },
        message: 'Create high ticket for customer c1?',
      },
    ]);
    expect(events.map((event) => event.type)).toEqual(['tool-call-start', 'approval-required', 'approval-decided', 'tool-call-end']);
    expect(events[2]).toMatchObject({ type: 'approval-decided', approved: true });
    // The handler learns which call of the events it decides.
    expect(requests[0]?.callId).toBe((events[1] as { callId?: string }).callId);
    expect(requests[0]?.callId).toMatch(/^call-\d+$/);
  });

  it('shows the handler the message as it is, and every event the message redacted', async () => {
    const requests: ApprovalRequest[] = [];
    const secrets = [{ value: 'cust-4f9a8b7c6d', label: 'env CRM_TOKEN', strength: 'strong' as const }];
    const { bridge, events } = setup({ approvalHandler: (request) => (requests.push(request), true), secrets });
    await bridge.handle({ capability: 'crm', function: 'deleteCustomer', args: { customerId: 'cust-4f9a8b7c6d' } }, context());
    expect(requests[0]?.message).toBe('Delete customer cust-4f9a8b7c6d ({unknown})?');
    expect(events.find((event) => event.type === 'approval-required')).toMatchObject({
      message: 'Delete customer [REDACTED: env CRM_TOKEN] ({unknown})?',
    });
    expect(JSON.stringify(events)).not.toContain('cust-4f9a8b7c6d');
  });

  it('fills a {param} template and shows the handler the exact arguments, leaving unknown names as written', async () => {
    const requests: ApprovalRequest[] = [];
    const { bridge, events } = setup({ approvalHandler: (request) => (requests.push(request), true) });
    await bridge.handle({ capability: 'crm', function: 'deleteCustomer', args: { customerId: 'c9', apiKey: 'sk-live-123' } }, context());
    expect(events.find((event) => event.type === 'approval-required')).toMatchObject({
      params: { customerId: 'c9', apiKey: '[REDACTED]' },
    });
    expect(requests[0]?.message).toBe('Delete customer c9 ({unknown})?');
    // The person deciding sees what will run; events and traces get the redacted form.
    expect(requests[0]?.params).toEqual({ customerId: 'c9', apiKey: 'sk-live-123' });
  });

  it('falls back to a default message naming the call', async () => {
    const requests: ApprovalRequest[] = [];
    const { bridge } = setup({ approvalHandler: (request) => (requests.push(request), true) });
    await bridge.handle({ capability: 'crm', function: 'archive', args: { customerId: 'c2' } }, context());
    expect(requests[0]?.message).toBe('Allow crm.archive(customerId: "c2")?');
  });

  it('rejects a denied call with the reason and never runs it', async () => {
    const { bridge, events } = setup({ approvalHandler: () => ({ approved: false, reason: 'not during the freeze' }) });
    const error = await toolCallErrorOf(
      bridge.handle({ capability: 'crm', function: 'createTicket', args: { customerId: 'c1', priority: 'low' } }, context()),
    );
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toBe('tool "createTicket" of capability "crm" was denied: not during the freeze');
    expect(events.find((event) => event.type === 'approval-decided')).toMatchObject({ approved: false, reason: 'not during the freeze' });
    expect(events.at(-1)).toMatchObject({ type: 'tool-call-end', ok: false, error: { code: 'APPROVAL_DENIED' } });
  });

  it('denies with a clear message when no approval handler is configured', async () => {
    const { bridge } = setup();
    const error = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'archive', args: {} }, context()));
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toContain('requires approval, but no approval handler is configured (headless run)');
  });

  it('denies when the approval handler throws, with its message', async () => {
    const { bridge } = setup({
      approvalHandler: () => {
        throw new Error('prompt closed');
      },
    });
    const error = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'archive', args: {} }, context()));
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toBe('tool "archive" of capability "crm" was denied: the approval handler failed: prompt closed');
  });

  it('lets other calls finish while an approval is pending', async () => {
    const decision = deferred<boolean>();
    const asked = deferred<void>();
    const handler: ApprovalHandler = () => (asked.resolve(), decision.promise);
    const { bridge } = setup({ approvalHandler: handler });
    const order: string[] = [];
    const pending = bridge
      .handle({ capability: 'crm', function: 'archive', args: {} }, context())
      .then((value) => (order.push('approved call'), value));
    await asked.promise;
    const other = await bridge.handle({ capability: 'mcp-everything', function: 'getSum', args: { a: 1, b: 2 } }, context());
    order.push('other call');
    expect(other).toBe(3);
    decision.resolve(true);
    await expect(pending).resolves.toBe('archived');
    expect(order).toEqual(['other call', 'approved call']);
  });

  it('cancels a call waiting for approval when the run ends', async () => {
    const controller = new AbortController();
    const asked = deferred<void>();
    const { bridge } = setup({ approvalHandler: () => (asked.resolve(), new Promise<boolean>(() => {})) });
    const pending = toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'archive', args: {} }, context(controller.signal)));
    await asked.promise;
    controller.abort();
    expect((await pending).code).toBe('CANCELLED');
  });
});

describe('createBridge: rate limits, results, events', () => {
  it('rate-limits per capability with a retry-after, and frees the slot once the window passes', async () => {
    let now = 1_000_000;
    const { bridge } = setup({ now: () => now });
    const call = () => bridge.handle({ capability: 'limited', function: 'search', args: { query: 'q' } }, context());
    await call();
    now += 10_000;
    await call();
    const error = await toolCallErrorOf(call());
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.details).toMatchObject({ retryAfterMs: 50_000 });
    expect(error.message).toBe(
      'tool "search" of capability "limited" is rate-limited: capability "limited" allows 2 calls per minute; retry after 50.0 s',
    );
    // Other capabilities are not affected.
    await expect(bridge.handle({ capability: 'crm', function: 'search', args: { query: 'q' } }, context())).resolves.toBeDefined();
    now += 50_000;
    await expect(call()).resolves.toEqual({ query: 'q', limit: 10 });
    expect((await toolCallErrorOf(call())).code).toBe('RATE_LIMITED');
  });

  it('with onLimit "queue" a call past the limit waits in line (bounded by maxQueue), and a run that ends takes it out', async () => {
    const queued = { requests: 1, period: 'minute', onLimit: 'queue', maxWaitMs: 120_000, maxQueue: 1 } as const;
    const capabilities = specs().map((spec) => (spec.module === 'limited' ? { ...spec, config: { rateLimit: queued } } : spec));
    const bridge = createBridge({ capabilities, backends: { limited: createInProcessBackend({ limited: crm }) } });
    const call = (signal?: AbortSignal) =>
      bridge.handle({ capability: 'limited', function: 'search', args: { query: 'q' } }, context(signal));
    await expect(call()).resolves.toEqual({ query: 'q', limit: 10 });
    const run = new AbortController();
    const waiting = toolCallErrorOf(call(run.signal));
    const full = await toolCallErrorOf(call());
    expect(full.code).toBe('RATE_LIMITED');
    expect(full.message).toMatch(
      /^tool "search" of capability "limited" is rate-limited: capability "limited" allows 1 calls per minute and 1 calls already wait for a slot \(maxQueue 1\); retry after \d+\.\d s$/,
    );
    run.abort(new Error('the run timed out'));
    const cancelled = await waiting;
    expect([cancelled.code, cancelled.message]).toEqual([
      'CANCELLED',
      'tool "search" of capability "limited" was cancelled while it waited for a rate-limit slot: the run ended',
    ]);
    // The line is empty again: the next call waits instead of being refused for a full line.
    const next = new AbortController();
    const again = toolCallErrorOf(call(next.signal));
    expect((await toolCallErrorOf(call())).message).toContain('1 calls already wait');
    next.abort();
    expect((await again).code).toBe('CANCELLED');
  });

  it('checks the result against the output schema in value mode only', async () => {
    const { bridge } = setup();
    const error = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'badResult', args: {} }, context()));
    expect(error.code).toBe('INVALID_RESULT');
    // Nothing says the tool changes nothing, so the message says the call happened.
    expect(error.message).toBe(
      'tool "badResult" of capability "crm": the call was performed but its result did not match the declared type: result.items[1] must be string (got 3)',
    );
    await expect(bridge.handle({ capability: 'crm', function: 'badResult', args: {}, resultMode: 'full' }, context())).resolves.toEqual({
      items: ['a', 3],
    });
  });

  it('refuses results over the size cap, naming the size and the cap', async () => {
    const { bridge, events } = setup({ maxResultBytes: 100 });
    await expect(bridge.handle({ capability: 'crm', function: 'big', args: { length: 98 } }, context())).resolves.toHaveLength(98);
    expect(events.at(-1)).toMatchObject({ type: 'tool-call-end', ok: true, sizeBytes: 100 });
    const error = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'big', args: { length: 99 } }, context()));
    expect(error.code).toBe('RESULT_TOO_LARGE');
    expect(error.message).toBe(
      'tool "big" of capability "crm" returned 101 B, over the 100 B cap (maxResultBytes): ask for less (filter, paginate) or raise the cap',
    );
  });

  it('emits start and end events for every call, with secrets redacted', async () => {
    const { bridge, events } = setup({ secrets: ['hunter2-secret-value'] });
    const seen: BridgeEvent[] = [];
    const stop = bridge.on((event) => seen.push(event));
    await bridge.handle({ capability: 'crm', function: 'search', args: { query: 'by hunter2-secret-value', token: 'tok-1' } }, context());
    stop();
    await toolCallErrorOf(bridge.handle({ capability: 'nope', function: 'x', args: { password: 'p' } }, context()));
    expect(seen).toHaveLength(2);
    const [start, end, unknownStart, unknownEnd] = events;
    expect(start).toMatchObject({
      type: 'tool-call-start',
      callId: 'call-1',
      runId: 'run-1',
      capability: 'crm',
      function: 'search',
      args: { query: 'by [REDACTED: configured secret]', token: '[REDACTED]' },
    });
    expect(end).toMatchObject({
      type: 'tool-call-end',
      callId: 'call-1',
      ok: true,
      sizeBytes: JSON.stringify({ query: 'by hunter2-secret-value', limit: 10 }).length,
    });
    expect(end?.type === 'tool-call-end' && end.durationMs >= 0).toBe(true);
    expect(unknownStart).toMatchObject({ type: 'tool-call-start', callId: 'call-2', args: { password: '[REDACTED]' } });
    expect(unknownEnd).toMatchObject({ type: 'tool-call-end', ok: false, sizeBytes: 0, error: { code: 'UNKNOWN_CAPABILITY' } });
  });

  it('cancels a running in-process call when the run ends', async () => {
    const { bridge } = setup();
    const controller = new AbortController();
    gates.set('never', deferred<void>());
    const pending = toolCallErrorOf(
      bridge.handle({ capability: 'crm', function: 'slow', args: { gate: 'never' } }, context(controller.signal)),
    );
    controller.abort();
    const error = await pending;
    expect(error.code).toBe('CANCELLED');
    expect(error.message).toBe('tool "slow" of capability "crm" was cancelled: the run ended');
  });

  it('cancels a call whose run ended before its synchronous handler answered, and fails a handler that throws', async () => {
    const { bridge, events } = setup();
    const controller = new AbortController();
    const pending = toolCallErrorOf(
      bridge.handle({ capability: 'mcp-everything', function: 'getSum', args: { a: 1, b: 2 } }, context(controller.signal)),
    );
    controller.abort(); // before the handler ran (it runs a microtask later)
    const error = await pending;
    expect(error.code).toBe('CANCELLED');
    expect(error.message).toBe('tool "get-sum" of capability "mcp-everything" was cancelled: the run ended');
    const thrown = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'broken', args: {} }, context()));
    expect(thrown.code).toBe('TOOL_FAILED');
    expect(thrown.message).toBe('tool "broken" of capability "crm" failed: database is down');
    expect(
      events.filter((event) => event.type === 'tool-call-end').map((event) => event.type === 'tool-call-end' && event.error?.code),
    ).toEqual(['CANCELLED', 'TOOL_FAILED']);
  });

  it('awaits a thenable a handler returns, and checks each capability against its own schemas when they share a function', async () => {
    const thenable = defineTool({
      name: 'thenable',
      functions: {
        later: defineFunction({
          returns: { type: 'string' },
          handler: () => ({ then: (resolve: (value: string) => void) => resolve('settled') }) as unknown as string,
        }),
      },
    });
    const spec = capabilitySpecFromTool(thenable);
    // A second module over the same function objects, with another result type: each is checked as its own.
    const strict: CapabilitySpec = {
      ...spec,
      module: 'strict',
      functions: spec.functions.map((fn) => ({ ...fn, outputSchema: { type: 'number' } })),
    };
    const shared: CapabilitySpec = { ...spec, module: 'shared' };
    const backend = createInProcessBackend({ thenable, strict: thenable, shared: thenable });
    const bridge = createBridge({
      capabilities: [spec, strict, shared],
      backends: { thenable: backend, strict: backend, shared: backend },
    });
    await expect(bridge.handle({ capability: 'thenable', function: 'later', args: {} }, context())).resolves.toBe('settled');
    await expect(bridge.handle({ capability: 'shared', function: 'later', args: {} }, context())).resolves.toBe('settled');
    const error = await toolCallErrorOf(bridge.handle({ capability: 'strict', function: 'later', args: {} }, context()));
    expect(error.code).toBe('INVALID_RESULT');
    expect(error.message).toContain('tool "later" of capability "strict"');
    // The shared function's errors name the module that was called, not the first one that prepared it.
    const refused = await toolCallErrorOf(bridge.handle({ capability: 'shared', function: 'later', args: [] }, context()));
    expect(refused.message).toBe('tool "later" of capability "shared": arguments must be object (got [])');
    expect(refused.capability).toBe('shared');
  });

  it("gives a listener added while a call runs the end event with the call's fields", async () => {
    const bridge = createBridge({ capabilities: specs(), backends: { crm: createInProcessBackend({ crm }) } });
    gates.set('mid', deferred<void>());
    const pending = bridge.handle({ capability: 'crm', function: 'slow', args: { gate: 'mid' } }, context());
    const seen: BridgeEvent[] = [];
    bridge.on((event) => seen.push(event));
    gates.get('mid')?.resolve();
    await expect(pending).resolves.toBe('mid');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      type: 'tool-call-end',
      callId: 'call-1',
      runId: 'run-1',
      capability: 'crm',
      function: 'slow',
      ok: true,
    });
  });

  it("hands a traced call's traceparent to the backend, and none to an untraced one", async () => {
    const seen: (string | undefined)[] = [];
    const recording: Backend = { call: async (call) => (seen.push(call.traceparent), 'ok'), close: async () => undefined };
    const traceparent = '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01';
    const ends: unknown[] = [];
    const traced = createBridge({
      capabilities: specs(),
      backends: { crm: recording },
      tracer: { startCall: () => ({ traceparent, approvalWaited: () => undefined, end: (outcome) => void ends.push(outcome) }) },
    });
    await expect(traced.handle({ capability: 'crm', function: 'broken', args: {} }, context())).resolves.toBe('ok');
    const untraced = createBridge({ capabilities: specs(), backends: { crm: recording } });
    await expect(untraced.handle({ capability: 'crm', function: 'broken', args: {} }, context())).resolves.toBe('ok');
    expect(seen).toEqual([traceparent, undefined]);
    expect(ends).toEqual([{ ok: true, sizeBytes: 4 }]);
  });

  it('runs slow calls concurrently', async () => {
    const { bridge } = setup();
    gates.set('one', deferred<void>());
    gates.set('two', deferred<void>());
    const one = bridge.handle({ capability: 'crm', function: 'slow', args: { gate: 'one' } }, context());
    const two = bridge.handle({ capability: 'crm', function: 'slow', args: { gate: 'two' } }, context());
    gates.get('two')?.resolve();
    await expect(two).resolves.toBe('two');
    gates.get('one')?.resolve();
    await expect(one).resolves.toBe('one');
  });
});

describe('createBridge: secrets in failures', () => {
  it('cuts known secret values out of the error the program gets and the event', async () => {
    const secret = 'sk-live-0123456789';
    const leaky: Backend = {
      call: async (call) => {
        if (call.function.name === 'broken') throw new Error(`upstream refused key ${secret}`);
        throw new ToolCallError(
          'SERVER_UNAVAILABLE',
          `MCP server "crm" exited; stderr:\nbad API key ${secret}`,
          { capability: 'crm', function: call.function.name },
          {
            details: { stderr: `bad API key ${secret}`, env: { KEY: secret } },
          },
        );
      },
      close: async () => undefined,
    };
    const { bridge, events } = setup({ secrets: [secret], backends: { crm: leaky } });
    const crashed = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'search', args: { query: 'q' } }, context()));
    expect(crashed.code).toBe('SERVER_UNAVAILABLE');
    expect(crashed.message).toBe('MCP server "crm" exited; stderr:\nbad API key [REDACTED: configured secret]');
    expect(JSON.stringify(toWireError(crashed))).not.toContain(secret);
    const thrown = await toolCallErrorOf(bridge.handle({ capability: 'crm', function: 'broken', args: {} }, context()));
    expect(thrown.message).toBe('tool "broken" of capability "crm" failed: upstream refused key [REDACTED: configured secret]');
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(events.filter((event) => event.type === 'tool-call-end')).toHaveLength(2);
  });
});
