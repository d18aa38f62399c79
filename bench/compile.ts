// Speed of the JSON Schema → TypeScript step: our emitter (`emitDeclarations`) against the raw
// `compile` of json-schema-to-typescript (format: false) on the same 1,000 generated tool schemas.
import { performance } from 'node:perf_hooks';
import { compile } from 'json-schema-to-typescript';
import type { CapabilitySpec, FunctionSpec, JsonSchema } from '../core/index.js';
import { emitDeclarations } from '../compiler/declarations/emit-declarations.js';
import { emitProxy } from '../compiler/emit-proxy.js';

const TOOLS = 1_000;
const TOOLS_PER_MODULE = 20;

/** Deterministic pseudo-random numbers (mulberry32), so every run compiles the same tools. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 1,000 tools mixing the schema features real tools use: plain fields, enums, nullables, nested
 * objects and arrays, `$defs` with (recursive) refs, unions, tuples and maps. */
export function generateTools(count = TOOLS): FunctionSpec[] {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const leaf = (): JsonSchema =>
    pick<JsonSchema>([
      { type: 'string', description: 'A name, e.g. `main` or */ tricky' },
      { type: 'integer', minimum: 0 },
      { type: 'number' },
      { type: 'boolean', default: false },
      { type: ['string', 'null'] },
      { enum: ['asc', 'desc', 'none'] },
      { const: 'fixed' },
      { type: 'string', format: 'date-time' },
    ]);
  const field = (depth: number): JsonSchema => {
    const roll = next();
    if (depth > 2 || roll < 0.55) return leaf();
    if (roll < 0.7) return { type: 'array', items: field(depth + 1) };
    if (roll < 0.8) return { type: 'object', properties: fields(depth + 1, 3), required: ['f0'] };
    if (roll < 0.87) return { anyOf: [leaf(), leaf(), { type: 'null' }] };
    if (roll < 0.92) return { type: 'object', additionalProperties: leaf() };
    if (roll < 0.96) return { type: 'array', items: [leaf(), leaf()], minItems: 1 };
    return { $ref: '#/$defs/node' };
  };
  const fields = (depth: number, max: number): Record<string, JsonSchema> =>
    Object.fromEntries(Array.from({ length: 1 + Math.floor(next() * max) }, (_, index) => [`f${index}`, field(depth)]));
  return Array.from({ length: count }, (_, index): FunctionSpec => {
    const properties = fields(0, 8);
    const inputSchema: JsonSchema = {
      type: 'object',
      description: `Input of tool ${index}`,
      properties,
      required: Object.keys(properties).filter(() => next() < 0.4),
      $defs: {
        node: { type: 'object', properties: { id: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } },
      },
    };
    const outputSchema: JsonSchema | undefined = next() < 0.5 ? { type: 'object', properties: fields(0, 5) } : undefined;
    if (outputSchema !== undefined) outputSchema.$defs = inputSchema.$defs;
    return {
      name: `tool${index}`,
      toolName: `tool_${index}`,
      description: `Tool number ${index}`,
      inputSchema,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      resultKind: outputSchema === undefined && index % 3 === 0 ? 'mcp-text' : 'value',
    };
  });
}

function modulesOf(tools: readonly FunctionSpec[]): CapabilitySpec[] {
  const modules: CapabilitySpec[] = [];
  for (let start = 0; start < tools.length; start += TOOLS_PER_MODULE) {
    const index = start / TOOLS_PER_MODULE;
    modules.push({
      module: `bench-${index}`,
      namespace: `bench${index}`,
      source: { kind: 'json', path: `bench/${index}.json` },
      config: {},
      functions: tools.slice(start, start + TOOLS_PER_MODULE),
    });
  }
  return modules;
}

async function time(run: () => Promise<void> | void): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** The best of `rounds` timings, so a garbage collection or JIT pause does not decide the figure. */
async function best(rounds: number, run: () => Promise<void> | void): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round += 1) fastest = Math.min(fastest, await time(run));
  return fastest;
}

export async function run(): Promise<string> {
  const tools = generateTools();
  const modules = modulesOf(tools);
  const schemas = tools.flatMap((tool) => [tool.inputSchema, ...(tool.outputSchema === undefined ? [] : [tool.outputSchema])]);
  let warnings = 0;
  let failures = 0;
  let bytes = 0;

  const first = await time(() => {
    for (const spec of modules) emitDeclarations(spec);
  });
  const ours = await best(10, () => {
    warnings = 0;
    bytes = 0;
    for (const spec of modules) {
      const output = emitDeclarations(spec);
      warnings += output.warnings.length;
      bytes += output.dts.length;
    }
  });
  const oursWithProxies = await best(10, () => {
    for (const spec of modules) {
      emitDeclarations(spec);
      emitProxy(spec);
    }
  });
  // json-schema-to-typescript mutates what it is given: each round compiles fresh copies (copied
  // outside the timing).
  const baselineRounds: number[] = [];
  for (let round = 0; round < 3; round += 1) {
    const copies = schemas.map((schema) => structuredClone(schema));
    failures = 0;
    baselineRounds.push(
      await time(async () => {
        for (const [index, schema] of copies.entries()) {
          try {
            await compile(schema as Parameters<typeof compile>[0], `Tool${index}`, {
              bannerComment: '',
              format: false,
              additionalProperties: false,
            });
          } catch {
            failures += 1;
          }
        }
      }),
    );
  }
  const baseline = Math.min(...baselineRounds);

  const row = (label: string, ms: number): string =>
    `| ${label} | ${ms.toFixed(1)} | ${((ms * 1000) / TOOLS).toFixed(1)} | ${(ms / baseline).toFixed(3)} |`;
  return [
    '## Compile: JSON Schema → TypeScript declarations',
    '',
    `${TOOLS} generated tools (${schemas.length} schemas: input and, for half of them, output; mixed features incl. recursive \`$defs\`), in ${modules.length} modules of ${TOOLS_PER_MODULE}. Best of 10 runs (baseline: best of 3), after a first cold run.`,
    '',
    '| step | total ms | µs / tool | ratio to json-schema-to-typescript |',
    '|---|---:|---:|---:|',
    row('json-schema-to-typescript `compile` (format: false), one schema at a time — baseline', baseline),
    row('`emitDeclarations`, first (cold) run', first),
    row('`emitDeclarations` (whole modules)', ours),
    row('`emitDeclarations` + `emitProxy`', oursWithProxies),
    '',
    `Our output: ${(bytes / 1024).toFixed(0)} KiB of declarations, ${warnings} warnings. Baseline failures: ${failures}.`,
    '',
  ].join('\n');
}
