/**
 * Bridge dispatch overhead: the same tiny `defineTool` function called N times directly (baseline),
 * through the in-process backend, and through `bridge.handle` (validation, rate-limit check, events,
 * result check, size measure) — sequentially, in the same run. Target (issue 3): under 20 µs of
 * overhead per call in-process.
 */
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { defineFunction, defineTool } from '../core/index.js';
import type { CallContext, ToolCallContext } from '../core/index.js';
import type { BackendCall } from '../core/index.js';
import { createBridge, createInProcessBackend } from '../bridge/index.js';
import { capabilitySpecFromTool } from '../bridge/test-support/capability-spec-from-tool.js';
import { median } from './median.js';

const CALLS = 20_000;
const ROUNDS = 5;

const math = defineTool({
  name: 'math',
  functions: {
    add: defineFunction({
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      returns: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
      handler: ({ a, b }) => ({ sum: a + b }),
    }),
    addZod: defineFunction({
      parameters: z.object({ a: z.number(), b: z.number().default(1) }),
      returns: z.object({ sum: z.number() }),
      handler: ({ a, b }) => ({ sum: a + b }),
    }),
    approved: defineFunction({
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      requiresApproval: true,
      handler: ({ a, b }) => ({ sum: a + b }),
    }),
  },
});

async function perCallMicros(call: (index: number) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    for (let index = 0; index < CALLS; index += 1) await call(index);
    samples.push(((performance.now() - started) * 1000) / CALLS);
  }
  return median(samples);
}

export async function run(): Promise<string> {
  const spec = capabilitySpecFromTool(math);
  const backend = createInProcessBackend({ math });
  const context: CallContext = { runId: 'bench', signal: new AbortController().signal };
  const quiet = createBridge({ capabilities: [spec], backends: { math: backend } });
  let seen = 0;
  const observed = createBridge({
    capabilities: [spec],
    backends: { math: backend },
    onEvent: () => void (seen += 1),
    approvalHandler: () => true,
  });
  const toolContext: ToolCallContext = { runId: 'bench', capability: 'math', function: 'add', signal: context.signal };
  const addSpec = spec.functions.find((candidate) => candidate.name === 'add');
  if (addSpec === undefined) throw new Error('bench: math.add missing');
  const backendCall = (index: number): BackendCall => ({
    capability: spec,
    function: addSpec,
    args: { a: index, b: 2 },
    resultMode: 'value',
    callId: 'b',
    context,
  });

  // Warm up every path once so the first round does not pay for ajv compilation and JIT.
  for (let index = 0; index < 2_000; index += 1) {
    await observed.handle({ capability: 'math', function: 'addZod', args: { a: index } }, context);
    await observed.handle({ capability: 'math', function: 'approved', args: { a: index, b: 1 } }, context);
    await quiet.handle({ capability: 'math', function: 'add', args: { a: index, b: 1 } }, context);
  }

  const rows: [string, number][] = [
    ['direct handler call (baseline)', await perCallMicros(async (index) => math.functions.add.handler({ a: index, b: 2 }, toolContext))],
    ['in-process backend.call', await perCallMicros((index) => backend.call(backendCall(index)))],
    [
      'bridge.handle, JSON Schema args, no listener',
      await perCallMicros((index) => quiet.handle({ capability: 'math', function: 'add', args: { a: index, b: 2 } }, context)),
    ],
    [
      'bridge.handle, JSON Schema args, event listener',
      await perCallMicros((index) => observed.handle({ capability: 'math', function: 'add', args: { a: index, b: 2 } }, context)),
    ],
    [
      'bridge.handle, zod args (defaults applied), listener',
      await perCallMicros((index) => observed.handle({ capability: 'math', function: 'addZod', args: { a: index } }, context)),
    ],
    [
      'bridge.handle with an auto-approving handler, listener',
      await perCallMicros((index) => observed.handle({ capability: 'math', function: 'approved', args: { a: index, b: 2 } }, context)),
    ],
  ];
  if (seen === 0) throw new Error('bench: the listener saw no events');
  const baseline = rows[0]?.[1] ?? Number.NaN;
  const lines = rows.map(
    ([label, micros]) => `| ${label} | ${micros.toFixed(2)} | ${(micros - baseline).toFixed(2)} | ${(micros / baseline).toFixed(1)}× |`,
  );
  return [
    '## Bridge dispatch overhead (in-process)',
    '',
    `${CALLS.toLocaleString('en-US')} sequential calls per round, median of ${ROUNDS} rounds. Target: under 20 µs of overhead per call.`,
    '',
    '| path | µs / call | overhead vs direct (µs) | ratio |',
    '|---|---:|---:|---:|',
    ...lines,
    '',
  ].join('\n');
}
