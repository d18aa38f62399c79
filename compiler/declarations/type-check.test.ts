// Every generated declaration is type-checked by the real TypeScript compiler under --strict, both as
// module files (`capabilities/<module>/index.d.ts`, what the runtime resolves) and as the ambient
// `capabilities.d.ts`, together with usage files that import from '@capabilities/<module>' and prove
// the types mean what the schemas say — including usages that must fail to type-check.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import type { CapabilitySpec, CompileWarning, FunctionSpec, JsonSchema } from '../../core/index.js';
import { getWeatherSpec, mcpEverythingSpec, specWith, trainScheduleSpec } from '../__fixtures__/specs.js';
import { emitAggregateModule, emitAmbientDeclarations } from '../emit-ambient.js';
import { emitDeclarations } from './emit-declarations.js';

interface Case {
  name: string;
  /** One function `run` with these parts, or a whole spec. */
  run?: Partial<FunctionSpec>;
  spec?: CapabilitySpec;
  /** Statements inside an async function; `run`, `T` (the module's types), `Equal` and `assertType` are in scope. */
  usage: string;
  /** Statements that must NOT type-check, each with the TypeScript error code it must produce. */
  mustFail?: { code: number; usage: string }[];
  /** How many warnings the schema must produce. */
  warnings?: number;
}

const object = (properties: Record<string, unknown>, extra: JsonSchema = {}): JsonSchema => ({ type: 'object', properties, ...extra });
function hostileSchema(): JsonSchema {
  const cyclic: JsonSchema = { type: 'object' };
  cyclic.properties = { self: cyclic, again: cyclic };
  let deepConst: unknown = 1;
  for (let level = 0; level < 200; level += 1) deepConst = { v: deepConst };
  return object({
    cyclic,
    big: { const: 10n, default: 10n },
    fn: { type: 'string', default: () => 1, description: (() => 'x') as unknown as string },
    deep: { const: deepConst },
    broken: { type: 'object', properties: ['a', 'b'] },
    sym: Symbol('s') as unknown as JsonSchema,
    ok: { type: 'string' },
  });
}
const deep = (levels: number): unknown => (levels === 0 ? { type: 'string' } : { type: 'object', properties: { next: deep(levels - 1) } });

const cases: Case[] = [
  {
    name: 'required and nullable',
    run: { inputSchema: object({ a: { type: ['string', 'null'] }, b: { type: 'integer' } }, { required: ['a'] }) },
    usage: `await run({ a: null }); await run({ a: 'x', b: 2 });
      assertType<Equal<T.RunParams['a'], string | null>>(); assertType<Equal<T.RunParams['b'], number | undefined>>();`,
    mustFail: [
      { code: 2345, usage: 'await run({});' },
      { code: 2554, usage: 'await run();' },
      { code: 2322, usage: "await run({ a: 'x', b: 'two' });" },
    ],
  },
  {
    name: '$defs with nested refs',
    run: {
      inputSchema: object(
        { x: { $ref: '#/$defs/A' } },
        { $defs: { A: object({ b: { $ref: '#/$defs/B' } }, { required: ['b'] }), B: { type: 'string', enum: ['p', 'q'] } } },
      ),
    },
    usage: `const p: T.RunParams = { x: { b: 'p' } }; await run(p); assertType<Equal<T.A['b'], T.B>>(); assertType<Equal<T.B, 'p' | 'q'>>();`,
    mustFail: [{ code: 2322, usage: "await run({ x: { b: 'r' } });" }],
  },
  {
    name: 'draft-07 definitions',
    run: {
      inputSchema: object({ when: { $ref: '#/definitions/time' } }, { definitions: { time: { type: 'string', format: 'date-time' } } }),
    },
    usage: `await run({ when: '2026-01-01T00:00:00Z' }); assertType<Equal<T.Time, string>>();`,
  },
  {
    name: 'recursive refs through objects, arrays and unions',
    run: {
      inputSchema: object(
        { root: { $ref: '#/$defs/node' } },
        {
          required: ['root'],
          $defs: {
            node: object({
              value: { type: 'number' },
              children: { type: 'array', items: { $ref: '#/$defs/node' } },
              parent: { anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] },
            }),
          },
        },
      ),
    },
    usage: `await run({ root: { value: 1, children: [{ children: [{ value: 3 }] }], parent: null } });
      const n: T.Node = { parent: { parent: { value: 2 } } }; void n;`,
    mustFail: [{ code: 2322, usage: "await run({ root: { children: [{ value: 'x' }] } });" }],
  },
  {
    name: 'a recursive reference to the root',
    run: { inputSchema: object({ name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }) },
    usage: `await run({ children: [{ children: [{ name: 'leaf' }] }] }); assertType<Equal<T.RunParams['children'], T.RunParams[] | undefined>>();`,
  },
  {
    name: 'a reference cycle with nothing in between',
    run: {
      inputSchema: object(
        { a: { $ref: '#/$defs/a' }, b: { $ref: '#/$defs/b' } },
        { $defs: { a: { anyOf: [{ $ref: '#/$defs/b' }, { type: 'string' }] }, b: { $ref: '#/$defs/a' } } },
      ),
    },
    usage: `await run({ a: 'x', b: 1 });`,
    warnings: 2,
  },
  {
    name: 'oneOf, anyOf and allOf',
    run: {
      inputSchema: object(
        {
          shape: {
            oneOf: [
              object({ kind: { const: 'circle' }, r: { type: 'number' } }, { required: ['kind', 'r'] }),
              object({ kind: { const: 'square' }, side: { type: 'number' } }, { required: ['kind', 'side'] }),
            ],
          },
          both: { allOf: [object({ a: { type: 'string' } }, { required: ['a'] }), object({ b: { type: 'number' } }, { required: ['b'] })] },
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          refined: {
            type: 'object',
            properties: { a: { type: 'string' }, b: { type: 'string' } },
            anyOf: [{ required: ['a'] }, { required: ['b'] }],
          },
        },
        { required: ['shape'] },
      ),
    },
    usage: `await run({ shape: { kind: 'circle', r: 1 }, both: { a: 'x', b: 1 }, either: 3, refined: { b: 'y' } });
      const area = (s: T.RunParams['shape']): number => (s.kind === 'circle' ? s.r : s.side); void area;`,
    mustFail: [
      { code: 2353, usage: "await run({ shape: { kind: 'circle', side: 1 } });" },
      { code: 2322, usage: "await run({ shape: { kind: 'square', side: 1 }, both: { a: 'x' } });" },
    ],
  },
  {
    name: 'const, single-value enums and enums of mixed types',
    run: {
      inputSchema: object({
        c: { const: 'fixed' },
        one: { enum: ['only'] },
        none: { enum: [] },
        mixed: { enum: [1, 'a', null, true, { x: 1, 'y-z': [2] }, [1, 'b'], 1e21, -3.5] },
      }),
    },
    usage: `await run({ c: 'fixed', one: 'only', mixed: { x: 1, 'y-z': [2] } }); await run({ mixed: 1e21 }); await run({ mixed: -3.5 });
      assertType<Equal<T.RunParams['c'], 'fixed' | undefined>>(); assertType<Equal<T.RunParams['none'], undefined>>();`,
    mustFail: [
      { code: 2322, usage: "await run({ c: 'other' });" },
      { code: 2322, usage: 'await run({ mixed: 2 });' },
    ],
  },
  {
    name: 'propertyNames, additionalProperties as a schema, patternProperties',
    run: {
      inputSchema: object({
        tags: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, additionalProperties: { type: 'string' } },
        mixed: object(
          { id: { type: 'integer' }, label: { type: 'string' } },
          { required: ['id'], additionalProperties: { type: 'boolean' } },
        ),
        pattern: {
          type: 'object',
          patternProperties: { '^x-': { type: 'number' }, '^y-': { type: 'string' } },
          additionalProperties: false,
        },
        open: object({ a: { type: 'string' } }, { additionalProperties: true }),
      }),
    },
    usage: `await run({ tags: { a: 'b' }, mixed: { id: 1, other: true }, pattern: { 'x-a': 1, 'y-b': 'two' }, open: { a: 'x', b: [1] } });
      assertType<Equal<T.RunParams['tags'], { [key: string]: string } | undefined>>();`,
    mustFail: [{ code: 2322, usage: 'await run({ tags: { a: 1 } });' }],
  },
  {
    name: 'property names that are keywords, have dashes, spaces or quotes',
    run: {
      inputSchema: object(
        Object.fromEntries(
          [
            'default',
            'function',
            'in',
            'class',
            'with-dash',
            'with space',
            'quote"s',
            "it's",
            'back\\slash',
            '',
            '123',
            'constructor',
            'ünï',
            'line\nbreak',
            '$ok',
            '_ok',
          ].map((key) => [key, { type: 'string', description: `the ${key} key` }]),
        ),
        { required: ['default', 'with-dash'] },
      ),
    },
    usage: `const p: T.RunParams = { default: 'd', function: 'f', in: 'i', class: 'c', 'with-dash': 'w', 'with space': 's', 'quote"s': 'q', "it's": 'i', 'back\\\\slash': 'b', '': 'e', '123': 'n', constructor: 'c', 'ünï': 'u', 'line\\nbreak': 'l', $ok: 'o', _ok: 'o' };
      await run(p); const d: string = p.default; void d;`,
    mustFail: [{ code: 2345, usage: "await run({ default: 'd' });" }],
  },
  {
    name: 'objects with no properties',
    run: {
      inputSchema: object({
        free: { type: 'object' },
        closed: { type: 'object', properties: {} },
        sealed: { type: 'object', additionalProperties: false },
        bare: {},
      }),
    },
    usage: `await run({ free: { anything: 1 }, closed: {}, sealed: {}, bare: 42 });`,
    mustFail: [{ code: 2322, usage: 'await run({ closed: { a: 1 } });' }],
  },
  {
    name: 'tuples: items as an array, prefixItems',
    run: {
      inputSchema: object({
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false, minItems: 2 },
        prefix: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }], items: { type: 'number' }, minItems: 1 },
        open: { type: 'array', items: [{ type: 'string' }] },
        list: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      }),
    },
    usage: `await run({ pair: ['a', 1], prefix: ['a'], open: [], list: ['a', 1] }); await run({ prefix: ['a', true, 1, 2], open: ['x', 1, {}] });
      assertType<Equal<T.RunParams['list'], (string | number)[] | undefined>>();`,
    mustFail: [
      { code: 2322, usage: "await run({ pair: ['a', 1, 2] });" },
      { code: 2322, usage: 'await run({ prefix: [] });' },
    ],
  },
  {
    name: 'boolean schemas',
    run: { inputSchema: object({ anything: true, nothing: false }), outputSchema: true as unknown as JsonSchema },
    usage: `await run({ anything: 123 }); const r: unknown = await run(); void r; assertType<Equal<T.RunResult, unknown>>();`,
    mustFail: [{ code: 2322, usage: 'await run({ nothing: 1 });' }],
  },
  {
    name: 'descriptions with backticks, comment ends, @ and line breaks',
    spec: {
      ...specWith('docs', 'docs', [
        {
          name: 'run',
          description: 'Ends a comment */ here, `code`,\n@param fake tag\r\nline\u2028separator /* nested */',
          inputSchema: object(
            { a: { type: 'string', title: 'T */', description: '*/ `x` @returns\n * not a star', default: '*/', examples: ['*/'] } },
            { title: 'Params */ title', description: '/** open' },
          ),
        },
      ]),
      description: 'Module */ description\n@packageDocumentation',
    },
    usage: `await run({ a: '*/' });`,
  },
  {
    name: 'titles and $defs that clash between functions of one module',
    spec: specWith(
      'clash',
      'clash',
      ['a', 'b', 'aParams'].map((name) => ({
        name,
        inputSchema: object(
          { item: { $ref: '#/$defs/Item' }, own: { $ref: '#/$defs/Own' } },
          { title: 'Input', $defs: { Item: { type: 'string', title: 'Input' }, Own: { const: name } } },
        ),
        outputSchema: object({ item: { $ref: '#/$defs/Item' } }, { title: 'Input', $defs: { Item: { type: 'number' } } }),
      })),
    ),
    usage: `const T2 = null; void T2;
      assertType<Equal<T.AParamsItem, string>>(); assertType<Equal<T.AResultItem, number>>(); assertType<Equal<T.AParamsParamsOwn, 'aParams'>>(); assertType<Equal<T.BParamsOwn, 'b'>>();`,
  },
  {
    name: 'OpenAPI nullable and type arrays with object and array',
    run: {
      inputSchema: object({
        v: { type: ['object', 'array', 'null'], properties: { a: { type: 'string' } }, items: { type: 'number' } },
        n: { type: 'string', nullable: true },
      }),
    },
    usage: `await run({ v: { a: 'x' }, n: null }); await run({ v: [1, 2] }); await run({ v: null });`,
  },
  {
    name: '$ref with siblings, refs into properties, escaped pointers',
    run: {
      inputSchema: object(
        {
          r: { $ref: '#/$defs/A', type: 'object', properties: { extra: { type: 'number' } } },
          same: { $ref: '#/properties/plain' },
          plain: { type: 'integer' },
          slash: { $ref: '#/$defs/a~1b' },
          space: { $ref: '#/$defs/with%20space' },
        },
        { $defs: { A: object({ a: { type: 'string' } }), 'a/b': { type: 'boolean' }, 'with space': { type: 'null' } } },
      ),
    },
    usage: `await run({ r: { a: 'x', extra: 1 }, same: 2, slash: true, space: null }); assertType<Equal<T.Plain, number>>();`,
  },
  {
    name: 'parts that cannot be typed fall back to unknown',
    run: {
      inputSchema: object({
        g: 42,
        h: { type: 'decimal' },
        i: { enum: 'x' },
        j: { $ref: 'other.json#/x' },
        k: { $ref: '#/nope' },
        l: { $dynamicRef: '#meta' },
        deep: deep(60),
        fine: { type: 'string' },
      }),
    },
    usage: `await run({ g: 1, h: 'x', i: [], j: {}, k: null, l: 0, fine: 'ok' });`,
    mustFail: [{ code: 2322, usage: 'await run({ fine: 1 });' }],
    warnings: 7,
  },
  {
    name: 'a root that refers to itself outside an object',
    run: { inputSchema: { type: 'object', properties: { a: { type: 'string' } }, allOf: [{ $ref: '#' }] } },
    usage: `await run({ a: 'x' });`,
    warnings: 1,
  },
  {
    name: 'hostile JavaScript values: cycles, BigInt, functions, deep constants, non-object properties',
    run: { inputSchema: hostileSchema() },
    usage: `await run({ ok: 'x' });`,
    warnings: 6,
  },
  {
    name: 'a typed result',
    run: { inputSchema: object({}), outputSchema: object({ id: { type: 'string' }, n: { type: 'integer' } }, { required: ['id'] }) },
    usage: `const r = await run(); const id: string = r.id; const n: number | undefined = r.n; void id; void n;`,
    mustFail: [{ code: 2322, usage: 'const r = await run(); const n: number = r.n; void n;' }],
  },
  {
    name: 'MCP text and structured results',
    spec: specWith('mcp-mixed', 'mcpMixed', [
      { name: 'run', resultKind: 'mcp-text', inputSchema: object({ q: { type: 'string' } }) },
      {
        name: 'structured',
        resultKind: 'mcp-structured',
        inputSchema: object({}),
        outputSchema: object({ temp: { type: 'number' } }, { required: ['temp'] }),
      },
    ]),
    usage: `const s: string = await run({ q: 'x' }); void s;
      const full = await run.full();
      for (const block of full.content) { if (block.type === 'image') { const m: string = block.mimeType; void m; } }
      const t: number = (await T.mcpMixed.structured()).temp; void t;
      const ns = await import('@capabilities/mcp-mixed'); const d: string = await ns.default.run(); void d;`,
    mustFail: [
      { code: 2322, usage: 'const n: number = await run();' },
      { code: 2339, usage: 'await T.mcpMixed.structured.full();' },
    ],
  },
  {
    name: 'reserved global and MCP type names as $defs',
    spec: specWith('shadow', 'shadow', [
      {
        name: 'run',
        resultKind: 'mcp-text',
        inputSchema: object(
          {
            p: { $ref: '#/$defs/Promise' },
            r: { $ref: '#/$defs/Record' },
            m: { $ref: '#/$defs/McpCallResult' },
            a: { $ref: '#/$defs/Array' },
          },
          {
            $defs: { Promise: { type: 'string' }, Record: { type: 'number' }, McpCallResult: { type: 'boolean' }, Array: { type: 'null' } },
          },
        ),
      },
    ]),
    usage: `const s: string = await run({ p: 'x', r: 1, m: true, a: null }); void s; const full: T.McpCallResult = await run.full(); void full;`,
  },
  {
    name: 'a namespace with the name of its function',
    spec: specWith('get-weather', 'getWeather', [
      { name: 'getWeather', inputSchema: object({ city: { type: 'string' } }, { required: ['city'] }) },
    ]),
    usage: `const { default: all } = await import('@capabilities/get-weather'); await all.getWeather({ city: 'x' }); await T.getWeather({ city: 'y' });`,
    warnings: 1,
  },
  {
    name: 'the seed trainSchedule',
    spec: trainScheduleSpec(),
    usage: `const trips = await T.trainSchedule.getSchedule(); const h: number | undefined = trips[0]?.hour; void h; await T.getTrainDetails({ trainId: 't1' });`,
    mustFail: [{ code: 2554, usage: 'await T.getTrainDetails();' }],
  },
  {
    name: 'the seed get_weather',
    spec: getWeatherSpec(),
    usage: `const w: unknown = await T.getWeather({ location: 'Oslo', unit: 'celsius' }); void w;`,
    mustFail: [{ code: 2322, usage: "await T.getWeather({ location: 'Oslo', unit: 'kelvin' });" }],
  },
  {
    name: 'every tool of server-everything',
    spec: mcpEverythingSpec(),
    usage: `const sum: string = await T.getSum({ a: 1, b: 2 }); void sum; const all = T.mcpEverything; void all;`,
  },
];

const PRELUDE = `export type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends (<V>() => V extends B ? 1 : 2) ? true : false;
export function assertType<_T extends true>(): void {}
`;

interface Built {
  module: string;
  spec: CapabilitySpec;
  dts: string;
  warnings: CompileWarning[];
}

function build(testCase: Case, index: number): Built {
  const module = testCase.spec?.module ?? `case-${index}`;
  const spec = testCase.spec ?? specWith(module, `case${index}`, [{ name: 'run', ...testCase.run }]);
  const { dts, warnings } = emitDeclarations(spec);
  return { module, spec, dts, warnings };
}

function usageFile(module: string, body: string): string {
  const hasRun = /\brun\b/.test(body);
  return `import type { Equal } from '../prelude.js';
import { assertType } from '../prelude.js';
import * as T from '@capabilities/${module}';
${hasRun ? `import { run } from '@capabilities/${module}';\n` : ''}void assertType; export type { Equal };
export async function check(): Promise<void> {
  ${body}
}
`;
}

const built = cases.map(build);
const usageFiles = new Map<string, { caseName: string; failCode?: number }>();
const sourceFiles: Record<string, string> = { 'prelude.ts': PRELUDE };
cases.forEach((testCase, index) => {
  const { module } = built[index] as Built;
  sourceFiles[`usage/${module}.ts`] = usageFile(module, testCase.usage);
  usageFiles.set(`usage/${module}.ts`, { caseName: testCase.name });
  testCase.mustFail?.forEach((fail, failIndex) => {
    const path = `usage/${module}.fail-${failIndex}.ts`;
    sourceFiles[path] = usageFile(module, fail.usage);
    usageFiles.set(path, { caseName: testCase.name, failCode: fail.code });
  });
});

const std = ['fs', 'http'].map((name) =>
  specWith(`std-${name}`, name, [{ name: 'read', inputSchema: object({ path: { type: 'string' } }, { required: ['path'] }) }]),
);
const aggregate = emitAggregateModule(
  'std',
  std.map((spec) => ({ module: spec.module, namespace: spec.namespace })),
);
sourceFiles['usage/std.ts'] = `import std, { fs, http } from '@capabilities/std';
import { std as named } from '@capabilities/std';
export async function check(): Promise<unknown> { return [await fs.read({ path: 'a' }), await http.read({ path: 'b' }), await std.fs.read({ path: 'c' }), named.http]; }
`;
sourceFiles['usage/std.fail-0.ts'] = `import { fs } from '@capabilities/std';\nexport const x = fs.read();\n`;
usageFiles.set('usage/std.ts', { caseName: 'aggregate std' });
usageFiles.set('usage/std.fail-0.ts', { caseName: 'aggregate std', failCode: 2554 });

const moduleFiles: Record<string, string> = {};
for (const { module, dts } of built) moduleFiles[`capabilities/${module}/index.d.ts`] = dts;
for (const spec of std) moduleFiles[`capabilities/${spec.module}/index.d.ts`] = emitDeclarations(spec).dts;
moduleFiles['capabilities/std/index.d.ts'] = aggregate.dts;
const ambientFile = emitAmbientDeclarations(Object.entries(moduleFiles).map(([path, dts]) => ({ module: path.split('/')[1] ?? '', dts })));

const root = mkdtempSync(join(tmpdir(), 'agent-spaces-dts-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Type-checks `files` (written under a fresh folder) and returns the diagnostics per file. */
function typeCheck(name: string, files: Record<string, string>, paths: boolean): Map<string, ts.Diagnostic[]> {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts'],
    types: [],
    skipLibCheck: false,
    skipDefaultLibCheck: true,
    ...(paths ? { baseUrl: dir, paths: { '@capabilities/*': ['./capabilities/*/index.d.ts'] } } : {}),
  };
  const program = ts.createProgram(
    Object.keys(files).map((path) => join(dir, path)),
    options,
  );
  const byFile = new Map<string, ts.Diagnostic[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file === undefined ? '(global)' : relative(dir, diagnostic.file.fileName);
    byFile.set(file, [...(byFile.get(file) ?? []), diagnostic]);
  }
  return byFile;
}

function format(diagnostics: readonly ts.Diagnostic[]): string[] {
  return diagnostics.map((diagnostic) => {
    const position =
      diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start) : undefined;
    return `TS${diagnostic.code} ${position ? `${position.line + 1}:${position.character + 1} ` : ''}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe.each([
  { mode: 'module files', files: { ...moduleFiles, ...sourceFiles }, paths: true },
  { mode: 'ambient capabilities.d.ts', files: { 'capabilities.d.ts': ambientFile, ...sourceFiles }, paths: false },
])('generated declarations type-check under --strict ($mode)', ({ mode, files, paths }) => {
  const diagnostics = typeCheck(mode.replace(/\W+/g, '-'), files, paths);

  it('declaration files have no errors', () => {
    const inDeclarations = [...diagnostics].filter(([file]) => !file.startsWith('usage/') && file !== 'prelude.ts');
    expect(Object.fromEntries(inDeclarations.map(([file, list]) => [file, format(list)]))).toEqual({});
  });

  it.each([...usageFiles].filter(([, info]) => info.failCode === undefined))('usage of %s type-checks', (file) => {
    expect(format(diagnostics.get(file) ?? [])).toEqual([]);
  });

  it.each([...usageFiles].filter(([, info]) => info.failCode !== undefined))('misuse %s fails to type-check', (file, info) => {
    expect(format(diagnostics.get(file) ?? []).map((line) => line.split(' ')[0])).toContain(`TS${info.failCode}`);
  });
});

describe('warnings of the tricky schemas', () => {
  it.each(cases.map((testCase, index) => [testCase.name, testCase.warnings ?? 0, built[index] as Built] as const))(
    '%s: %i warnings',
    (_name, expected, result) => {
      expect(result.warnings.map((warning) => warning.message)).toHaveLength(expected);
    },
  );
});
