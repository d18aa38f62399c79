/**
 * Hostile tool definitions: tool files, `defineTool` modules and MCP servers that would have an approval
 * flag silently ignored, or ship a schema that cannot validate. Each must fail its own source's build
 * with a message naming what is wrong, where, and what to write instead — never a crash, never a
 * console line, never a run-time TOOL_FAILED. Every case is followed by proof that a healthy source of
 * the same build still works: it is built, and a call to it passes through the bridge.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createBridge } from '../../bridge/index.js';
import { buildCapabilities, type BuildResult } from '../../compiler/index.js';
import { resolveConfig, type ResolvedConfig } from '../../config/index.js';
import type { CallContext, CapabilitySpec } from '../../core/index.js';
import { createFilesSource, kindsOf, mcpSource } from '../../sources/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { toolCallErrorOf } from '../support/tool-call-error-of.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DEFINE_TOOL = pathToFileURL(path.join(REPO, 'core/define-tool.ts')).href;

const HEALTHY_TS = `import { defineFunction, defineTool } from '${DEFINE_TOOL}';
export const healthy = defineTool({
  name: 'healthy',
  functions: {
    add: defineFunction({
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      returns: { type: 'number' },
      handler: ({ a, b }) => a + b,
    }),
  },
});
`;

/** A `defineTool` module with one function, its option object given as source text. */
function tsTool(name: string, functionSource: string, toolExtra = ''): string {
  return `import { defineTool } from '${DEFINE_TOOL}';
export const ${name} = defineTool({
  name: '${name}',${toolExtra}
  functions: { run: ${functionSource} },
});
`;
}

interface Built {
  root: string;
  result: BuildResult;
}

let consoleSpies: MockInstance[] = [];
let last: Built | undefined;

beforeEach(() => {
  consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation(() => undefined),
  );
  last = undefined;
});

afterEach(async () => {
  // Nothing a tool definition holds makes the compiler or ajv print.
  for (const spy of consoleSpies) expect(spy).not.toHaveBeenCalled();
  vi.restoreAllMocks();
  if (last !== undefined) await expectHealthy(last.result);
});

const context = (): CallContext => ({ runId: 'hostile-tools', signal: new AbortController().signal });

/** The tool files as the compiler alone builds them: a JSON tool without an implementation is built too. */
const toolFiles = createFilesSource({ requireImplementations: false });
const configs = new WeakMap<BuildResult, ResolvedConfig>();

/** A bridge over the build, its tool files performed by the files source's backend (from the same imports). */
async function bridgeFor(result: BuildResult) {
  const specs = result.manifest.capabilities.filter((spec) => kindsOf(toolFiles).includes(spec.source.kind));
  const backend = await toolFiles.connect(specs, { config: configs.get(result) as ResolvedConfig });
  return createBridge({
    capabilities: result.manifest.capabilities,
    backends: Object.fromEntries(specs.map((spec) => [spec.module, backend])),
  });
}

/** The healthy neighbour was built without a problem, and a call to it runs and validates. */
async function expectHealthy(result: BuildResult): Promise<void> {
  const healthy = result.sources.find((source) => source.source === path.join('capabilities', 'healthy.ts'));
  expect(healthy?.status === 'built' || healthy?.status === 'unchanged').toBe(true);
  const bridge = await bridgeFor(result);
  await expect(bridge.handle({ capability: 'healthy', function: 'add', args: { a: 2, b: 3 } }, context())).resolves.toBe(5);
  expect((await toolCallErrorOf(bridge.handle({ capability: 'healthy', function: 'add', args: { a: '2', b: 3 } }, context()))).code).toBe(
    'INVALID_ARGUMENTS',
  );
}

/** Builds a space of the healthy module and `files` (path → JSON value or source text). */
async function build(
  files: Record<string, unknown>,
  options: { root?: string; mcpServers?: Record<string, unknown> } = {},
): Promise<Built> {
  const root = options.root ?? (await makeTempDir('hostile-tools'));
  await mkdir(path.join(root, 'tools'), { recursive: true });
  await mkdir(path.join(root, 'capabilities'), { recursive: true });
  await writeFile(path.join(root, 'capabilities/healthy.ts'), HEALTHY_TS);
  for (const [file, content] of Object.entries(files)) {
    await writeFile(path.join(root, file), typeof content === 'string' ? content : JSON.stringify(content));
  }
  const config = resolveConfig(
    { capabilities: ['tools/*.json', 'capabilities/*.ts'], mcpServers: options.mcpServers ?? {} },
    { root, env: {} },
  );
  const result = await buildCapabilities({ config, sources: [toolFiles, mcpSource] });
  configs.set(result, config);
  last = { root, result };
  return last;
}

/** The one failure of a build, which must be `source`'s. */
function onlyFailure(result: BuildResult, source: string): string {
  expect(result.errors.map((error) => error.source)).toEqual([source]);
  return result.errors[0]?.message ?? '';
}

function specOf(result: BuildResult, module: string): CapabilitySpec | undefined {
  return result.manifest.capabilities.find((spec) => spec.module === module);
}

const CRM = path.join('tools', 'crm.json');
const seed = (functions: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'crm', functions, ...extra });

describe('misplaced approval flags', () => {
  it('config.requiresApproval on a function of a JSON tool file', async () => {
    const { result } = await build({
      'tools/crm.json': seed([{ name: 'search' }, { name: 'deleteCustomer', config: { requiresApproval: true } }]),
    });
    expect(onlyFailure(result, CRM)).toBe(
      "tools/crm.json: functions[1].config.requiresApproval is not a function key; requiresApproval goes on the function itself (functions[1].requiresApproval) or on the file's top-level config",
    );
    expect(specOf(result, 'crm')).toBeUndefined();
  });

  it('requiresApproval on the top level of a file with functions', async () => {
    const { result } = await build({ 'tools/crm.json': seed([{ name: 'deleteCustomer' }], { requiresApproval: true }) });
    expect(onlyFailure(result, CRM)).toBe(
      'tools/crm.json: requiresApproval is not a top-level key; requiresApproval goes in config (config.requiresApproval) to cover every function, or on one function (functions[i].requiresApproval)',
    );
  });

  it('requiresApproval beside the function of a {type: "function"} wrapper', async () => {
    const { result } = await build({
      'tools/crm.json': { type: 'function', function: { name: 'delete_customer' }, requiresApproval: true },
    });
    expect(onlyFailure(result, CRM)).toBe(
      'tools/crm.json: requiresApproval is not a {"type": "function"} wrapper key; requiresApproval goes inside function (function.requiresApproval)',
    );
  });

  it('approvalMessage in the capability config', async () => {
    const { result } = await build({
      'tools/crm.json': seed([{ name: 'deleteCustomer', requiresApproval: true }], { config: { approvalMessage: 'Delete {id}?' } }),
    });
    expect(onlyFailure(result, CRM)).toBe(
      'tools/crm.json: config.approvalMessage is not a config key; approvalMessage goes on a function (functions[i].approvalMessage)',
    );
  });

  it('config.requiresApproval on a function of a defineTool module', async () => {
    const { result } = await build({
      'capabilities/wipe.ts': tsTool('wipe', '{ config: { requiresApproval: true }, handler: () => null }'),
    });
    expect(onlyFailure(result, path.join('capabilities', 'wipe.ts'))).toBe(
      'capabilities/wipe.ts#wipe: functions.run.config.requiresApproval is not a function key; requiresApproval goes on the function itself (functions.run.requiresApproval) or on the config of defineTool()',
    );
  });

  it('an edit that moves a flag to the wrong place keeps the previous build, which still requires approval', async () => {
    const first = await build({ 'tools/crm.json': seed([{ name: 'deleteCustomer', requiresApproval: true }]) });
    expect(specOf(first.result, 'crm')?.functions[0]?.requiresApproval).toBe(true);
    const { result } = await build(
      { 'tools/crm.json': seed([{ name: 'deleteCustomer', config: { requiresApproval: true } }]) },
      { root: first.root },
    );
    expect(onlyFailure(result, CRM)).toMatch(/functions\[0\]\.config\.requiresApproval is not a function key/);
    expect(result.sources.find((source) => source.source === CRM)?.status).toBe('kept-previous');
    expect(specOf(result, 'crm')?.functions[0]?.requiresApproval).toBe(true);
  });

  it('an approval flag on a plain OpenAI-style tool is honoured, not dropped', async () => {
    const { result } = await build({
      'tools/crm.json': { name: 'delete_customer', parameters: { type: 'object' }, requiresApproval: true },
    });
    expect(result.errors).toEqual([]);
    expect(specOf(result, 'delete-customer')?.functions[0]?.requiresApproval).toBe(true);
  });
});

describe('typos of known keys', () => {
  it('requiresAproval on a function', async () => {
    const { result } = await build({ 'tools/crm.json': seed([{ name: 'deleteCustomer', requiresAproval: true }]) });
    expect(onlyFailure(result, CRM)).toBe(
      'tools/crm.json: functions[0].requiresAproval is not a function key; did you mean functions[0].requiresApproval? (function keys: name, description, parameters, returns, requiresApproval, approvalMessage, callers)',
    );
  });

  it('requires_approval on an OpenAI-style tool', async () => {
    const { result } = await build({
      'tools/crm.json': { name: 'delete_customer', parameters: { type: 'object' }, requires_approval: true },
    });
    expect(onlyFailure(result, CRM)).toMatch(
      /^tools\/crm\.json: requires_approval is not a top-level key; did you mean requiresApproval\? \(top-level keys: /,
    );
  });

  it('requireApproval in the config of a defineTool module', async () => {
    const { result } = await build({
      'capabilities/wipe.ts': tsTool('wipe', '{ handler: () => null }', '\n  config: { requireApproval: true },'),
    });
    expect(onlyFailure(result, path.join('capabilities', 'wipe.ts'))).toBe(
      'capabilities/wipe.ts#wipe: config.requireApproval is not a config key; did you mean config.requiresApproval? (config keys: requiresApproval, rateLimit, callers)',
    );
  });

  it('a misspelt rate limit period, with every other problem of the file', async () => {
    const { result } = await build({
      'tools/crm.json': seed([{ name: 'search', paramters: {} }], { config: { rateLimit: { requests: 5, perod: 'minute' } } }),
    });
    expect(onlyFailure(result, CRM).split('\n')).toEqual([
      'tools/crm.json:',
      '  - functions[0].paramters is not a function key; did you mean functions[0].parameters? (function keys: name, description, parameters, returns, requiresApproval, approvalMessage, callers)',
      '  - config.rateLimit.perod is not a rateLimit key; did you mean config.rateLimit.period? (rateLimit keys: requests, period, onLimit, maxWaitMs, maxQueue)',
      '  - config.rateLimit.period: Invalid option: expected one of "second"|"minute"|"hour"|"day"',
    ]);
  });
});

describe('schemas that cannot be compiled fail the build, not the call', () => {
  it('a $ref to a definition that does not exist (JSON file)', async () => {
    const { result } = await build({
      'tools/crm.json': seed([{ name: 'search', parameters: { type: 'object', properties: { q: { $ref: '#/definitions/query' } } } }]),
    });
    expect(onlyFailure(result, CRM)).toBe(
      `tools/crm.json: tool "search": the parameters schema cannot be compiled: can't resolve reference #/definitions/query from id #; fix that schema (this source is not built until it compiles)`,
    );
  });

  it('a pattern that is not a regular expression, in a returns schema', async () => {
    const { result } = await build({ 'tools/crm.json': seed([{ name: 'search', returns: { type: 'string', pattern: '([a-z' } }]) });
    expect(onlyFailure(result, CRM)).toMatch(
      /^tools\/crm\.json: tool "search": the returns schema cannot be compiled: Invalid regular expression: /,
    );
  });

  it('a type that does not exist and a required list that is not a list, in one file', async () => {
    const { result } = await build({
      'tools/crm.json': seed([
        { name: 'a', parameters: { type: 'object', properties: { n: { type: 'integr' } } } },
        { name: 'b', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: 'id' } },
      ]),
    });
    expect(onlyFailure(result, CRM).split('\n')).toEqual([
      'tools/crm.json: 2 schemas cannot be compiled (this source is not built until they do):',
      '  - tool "a": the parameters schema is not a valid JSON Schema (draft-07): at /properties/n/type must be equal to one of the allowed values ("array", "boolean", "integer", "null", "number", "object", "string")',
      '  - tool "b": the parameters schema is not a valid JSON Schema (draft-07): at /required must be array',
    ]);
  });

  it('a defineTool module with an invalid JSON Schema', async () => {
    const { result } = await build({
      'capabilities/wipe.ts': tsTool(
        'wipe',
        "{ parameters: { type: 'object', properties: { n: { minimum: 'zero' } } }, handler: () => null }",
      ),
    });
    expect(onlyFailure(result, path.join('capabilities', 'wipe.ts'))).toMatch(
      /^capabilities\/wipe\.ts: tool "run": the parameters schema is not a valid JSON Schema \(draft-07\): at \/properties\/n\/minimum must be number/,
    );
  });

  it("an MCP server's tools/list with schemas ajv cannot compile", async () => {
    const server = {
      command: process.execPath,
      args: [path.join(REPO, 'compiler/__fixtures__/uncompilable-schema-server.mjs')],
      cwd: REPO,
    };
    const { result } = await build({}, { mcpServers: { odd: server } });
    const message = onlyFailure(result, 'mcp:odd');
    expect(message).toMatch(/^MCP server "odd": 3 schemas cannot be compiled/);
    for (const tool of ['dangling-ref', 'bad-pattern', 'bad-output']) expect(message).toContain(`tool "${tool}"`);
    expect(message).not.toContain('"fine"');
  });
});

describe('schemas that compile are validated as written', () => {
  it('resolves $refs against a root $id at run time', async () => {
    const parameters = {
      $id: 'https://example.test/order.json',
      type: 'object',
      properties: { item: { $ref: 'order.json#/definitions/item' } },
      required: ['item'],
      definitions: { item: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] } },
    };
    const { result } = await build({
      'capabilities/order.ts': tsTool(
        'order',
        `{ parameters: ${JSON.stringify(parameters)}, handler: ({ item }: { item: { sku: string } }) => item.sku }`,
      ),
    });
    expect(result.errors).toEqual([]);
    const bridge = await bridgeFor(result);
    await expect(bridge.handle({ capability: 'order', function: 'run', args: { item: { sku: 'A-1' } } }, context())).resolves.toBe('A-1');
    const error = await toolCallErrorOf(bridge.handle({ capability: 'order', function: 'run', args: { item: { sku: 7 } } }, context()));
    expect(error.code).toBe('INVALID_ARGUMENTS');
  });

  it('lets a nested schema with properties but no type accept a non-object, as JSON Schema says', async () => {
    const parameters = { type: 'object', properties: { filter: { properties: { field: { type: 'string' } } } } };
    const { result } = await build({
      'capabilities/find.ts': tsTool(
        'find',
        `{ parameters: ${JSON.stringify(parameters)}, handler: ({ filter }: { filter?: unknown }) => typeof filter }`,
      ),
    });
    expect(specOf(result, 'find')?.functions[0]?.inputSchema).toEqual(parameters);
    const bridge = await bridgeFor(result);
    await expect(bridge.handle({ capability: 'find', function: 'run', args: { filter: 'name:ann' } }, context())).resolves.toBe('string');
    expect(
      (await toolCallErrorOf(bridge.handle({ capability: 'find', function: 'run', args: { filter: { field: 1 } } }, context()))).code,
    ).toBe('INVALID_ARGUMENTS');
  });

  it('builds an unknown format with a warning, and prints nothing at build or call time', async () => {
    const parameters = { type: 'object', properties: { quarter: { type: 'string', format: 'fiscal-quarter' } } };
    const { result } = await build({
      'capabilities/plan.ts': tsTool('plan', `{ parameters: ${JSON.stringify(parameters)}, handler: () => 'ok' }`),
    });
    expect(result.warnings).toContainEqual(
      expect.objectContaining({
        pointer: '/inputSchema/properties/quarter',
        message: expect.stringContaining('format "fiscal-quarter", which is not known'),
      }),
    );
    await expect(
      (await bridgeFor(result)).handle({ capability: 'plan', function: 'run', args: { quarter: 'Q3' } }, context()),
    ).resolves.toBe('ok');
  });

  it('types a union with a {not: {}} branch by its other branches', async () => {
    const { root, result } = await build({
      'tools/pick.json': {
        name: 'pick',
        parameters: { type: 'object', properties: { value: { anyOf: [{ type: 'string' }, { not: {} }] } }, required: ['value'] },
      },
    });
    expect(result.errors).toEqual([]);
    const dts = await readFile(path.join(root, '.agent-spaces/capabilities/pick/index.d.ts'), 'utf8');
    expect(dts).toContain('  value: string;\n');
  });
});
