import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesSource, filesSource } from '../sources/index.js';
import { defineTool, ToolCallError, type ApprovalRequest, type BridgeEvent } from '../core/index.js';
import { resolveConfig } from '../config/index.js';
import { makeExampleSpace } from '../test/support/example-space.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { ENGINE_CHOICES, ENGINE_NAMES } from '../runtime/index.js';
import { createSpace, type Space } from './create-space.js';

describe('createSpace on the example space', () => {
  let space: Space;
  let root: string;
  const events: BridgeEvent[] = [];
  const approvals: ApprovalRequest[] = [];

  beforeAll(async () => {
    const made = await makeExampleSpace('space');
    root = made.root;
    Object.assign(process.env, made.env);
    space = await createSpace({
      cwd: root,
      onEvent: (event) => events.push(event),
      approvalHandler: async (request) => {
        approvals.push(request);
        // A person who takes longer to decide than the run may take in all.
        if ((request.params as { subject?: string }).subject === 'Slow decision') await new Promise((resolve) => setTimeout(resolve, 2500));
        return { approved: request.function !== 'remove', reason: 'test policy' };
      },
    });
    const build = await space.build();
    expect(build.errors).toEqual([]);
  });

  afterAll(async () => {
    await space.close();
  });

  it('calls a tool directly through the bridge', async () => {
    const details = await space.callTool('train-schedule.getTrainDetails', { trainId: 'IC-101' });
    expect(details).toEqual({ id: 'IC-101', operator: 'Intercity', stops: ['Central', 'Museum', 'Harbor'] });
    expect(events.filter((e) => e.type === 'tool-call-end').at(-1)).toMatchObject({
      capability: 'train-schedule',
      function: 'getTrainDetails',
      ok: true,
    });
  });

  it('rejects bad ids and bad arguments with ToolCallErrors that say what to do', async () => {
    await expect(space.callTool('nonsense', {})).rejects.toThrow(/"nonsense" is not a tool id: use "<module>.<function>"/);
    const error = await space.callTool('train-schedule.getTrainDetails', { trainId: 7 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolCallError);
    expect((error as ToolCallError).code).toBe('INVALID_ARGUMENTS');
    expect((error as ToolCallError).message).toContain('argument "trainId" must be string');
  });

  it('runs code that uses JSON tools, defineTool tools, the MCP server (value and full) and the standard library', async () => {
    const result = await space.run(`
import { getWeather } from '@capabilities/get-weather';
import { crm } from '@capabilities/crm';
import { stations } from '@capabilities/mcp-stations';
import { fs, csv, crypto } from '@capabilities/std';

const weather = await getWeather({ location: 'Tokyo', unit: 'fahrenheit' });
const customers = await crm.searchCustomers({ query: 'acme' });
const names = await stations.listStations();
const full = await stations.listStations.full();
const table = await csv.stringify({ rows: customers.map((c) => ({ id: c.id, name: c.name })) });
await fs.writeFile({ path: 'customers.csv', content: table });
const back = await fs.readFile({ path: 'customers.csv' });
const hash = await crypto.hash({ data: back, algorithm: 'sha256' });
export default { weather, count: customers.length, stations: names.split('\\n').length, blocks: full.content.length, hashLength: hash.length };
`);
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.success).toBe(true);
    expect(result.result).toEqual({
      weather: { location: 'Tokyo', temperature: 72, unit: 'fahrenheit', description: 'clear' },
      count: 2,
      stations: 6,
      blocks: 1,
      hashLength: 64,
    });
    expect(await readFile(path.join(root, 'workspace', 'customers.csv'), 'utf8')).toContain('Acme Corp');
  });

  it('pauses for approval without replaying the program, and reports denials as typed errors', async () => {
    const result = await space.run(`
import { crm } from '@capabilities/crm';
import { fs } from '@capabilities/std';
console.log('this line runs once');
const ticket = await crm.createTicket({ customerId: 'c-003', subject: 'Reset password' });
await fs.writeFile({ path: 'doomed.txt', content: 'x' });
let denied = '';
try { await fs.remove({ path: 'doomed.txt' }); } catch (e) { denied = (e as { code: string }).code; }
export default { ticket: ticket.subject, denied };
`);
    expect(result.success, JSON.stringify(result.error)).toBe(true);
    expect(result.result).toEqual({ ticket: 'Reset password', denied: 'APPROVAL_DENIED' });
    expect(result.logs.filter((log) => log.message === 'this line runs once')).toHaveLength(1);
    expect(approvals.map((a) => `${a.capability}.${a.function}`)).toEqual(expect.arrayContaining(['crm.createTicket', 'std-fs.remove']));
    expect(approvals.find((a) => a.function === 'createTicket')?.message).toBe(
      'Create medium ticket for customer c-003: "Reset password"?',
    );
  });

  it("stops the run's clock while a person decides an approval (worker isolation)", async () => {
    const result = await space.run(
      `import { crm } from '@capabilities/crm';\nconst ticket = await crm.createTicket({ customerId: 'c-001', subject: 'Slow decision' });\nexport default ticket.subject;`,
      { limits: { timeoutMs: 2000 } }, // room for a busy machine; the decision alone takes longer
    );
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ success: true, result: 'Slow decision' });
    expect(result.durationMs).toBeGreaterThan(2400);
  });

  it('says at build time what to write when a JSON tool has no implementation, and takes handlers given for it instead', async () => {
    await writeFile(path.join(root, 'plain.json'), JSON.stringify({ name: 'plain_tool', parameters: { type: 'object', properties: {} } }));
    const config = { ...space.config, capabilities: ['plain.json'], mcpServers: {}, outDir: path.join(root, '.plain-build') };
    const other = await createSpace({ config });
    try {
      const build = await other.build();
      expect(build.errors).toEqual([
        {
          source: 'plain.json',
          message: expect.stringContaining(
            'tool "plain_tool" has no "implementation", so nothing can perform its calls: add "implementation": "./impl/plain.ts"',
          ),
        },
      ]);
      const error = await other.callTool('plain-tool.plainTool', {}).catch((e: unknown) => e);
      expect((error as ToolCallError).code).toBe('UNKNOWN_CAPABILITY');
    } finally {
      await other.close();
    }
    // The caller's handlers for the JSON tool: a files source of its own in place of the default one.
    const handlers = { 'plain-tool': defineTool({ name: 'plain_tool', functions: { plain_tool: { handler: () => 'served' } } }) };
    const served = await createSpace({
      config,
      sources: (defaults) => [createFilesSource({ handlers }), ...defaults.filter((source) => source !== filesSource)],
    });
    try {
      expect((await served.build()).errors).toEqual([]);
      expect(await served.callTool('plain-tool.plainTool', {})).toBe('served');
    } finally {
      await served.close();
    }
  });
});

describe('createSpace freshness', () => {
  it('rebuilds on first use when a capability file changed since the last build', async () => {
    const root = await makeTempDir('space-fresh');
    const tool = (functions: string[]) =>
      JSON.stringify({
        name: 'greeter',
        implementation: './greeter.ts',
        functions: functions.map((name) => ({ name, parameters: { type: 'object', properties: {} } })),
      });
    await writeFile(path.join(root, 'greeter.ts'), "export const hello = () => 'hello';\nexport const bye = () => 'bye';\n");
    await writeFile(path.join(root, 'greeter.json'), tool(['hello']));
    const config = resolveConfig({ capabilities: ['greeter.json'] }, { root, env: {} });
    const first = await createSpace({ config });
    await first.build();
    await first.close();
    // A later edit (mtime after the build's manifest) adds a function.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await writeFile(path.join(root, 'greeter.json'), tool(['hello', 'bye']));
    const second = await createSpace({ config });
    try {
      const result = await second.run("import { bye } from '@capabilities/greeter';\nexport default await bye();");
      expect(result.error).toBeUndefined();
      expect(result.result).toBe('bye');
    } finally {
      await second.close();
    }
  });
});

describe('createSpace sources', () => {
  it('compiles exactly the sources it is given, and says so when a built module has no source in this space', async () => {
    const root = await makeTempDir('space-sources');
    await writeFile(path.join(root, 'greeter.ts'), "export const hello = () => 'hello';\n");
    await writeFile(
      path.join(root, 'greeter.json'),
      JSON.stringify({
        name: 'greeter',
        implementation: './greeter.ts',
        functions: [{ name: 'hello', parameters: { type: 'object', properties: {} } }],
      }),
    );
    const config = resolveConfig({ capabilities: ['greeter.json'] }, { root, env: {} });
    const full = await createSpace({ config, isolation: 'in-process' });
    try {
      const modules = (await full.build()).manifest.capabilities.map((spec) => spec.module);
      expect(modules).toEqual(expect.arrayContaining(['greeter', 'std-json', 'task-storage']));
    } finally {
      await full.close();
    }
    // The same build, opened with the files source alone: std's modules are built but served by no source.
    const filesOnly = await createSpace({ config, sources: [filesSource], isolation: 'in-process' });
    try {
      expect(await filesOnly.callTool('greeter.hello', {})).toBe('hello');
      const error = await filesOnly.callTool('std-json.parse', { text: '1' }).catch((e: unknown) => e);
      expect((error as ToolCallError).code).toBe('SERVER_UNAVAILABLE');
      expect((error as ToolCallError).message).toContain(
        '@capabilities/std-json comes from a source of kind "std" this space was not given',
      );
      const rebuilt = await filesOnly.build();
      expect(rebuilt.manifest.capabilities.map((spec) => spec.module)).toEqual(['greeter']);
    } finally {
      await filesOnly.close();
    }
  });
});

describe('createSpace: the sandbox engine', () => {
  it('refuses a sandbox.engine that is no engine when it opens, naming the key, the file and the choices', async () => {
    const config = resolveConfig({ sandbox: { engine: 'v8' } }, { root: '/nowhere', file: '/nowhere/agent-spaces.config.json', env: {} });
    const error = await createSpace({ config }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({
      name: 'ConfigError',
      code: 'CONFIG_INVALID',
      issues: [{ path: 'sandbox.engine', message: `must be one of ${ENGINE_CHOICES.map((name) => `"${name}"`).join(', ')} (got "v8")` }],
    });
    expect((error as Error).message).toBe(
      `invalid configuration in /nowhere/agent-spaces.config.json:\n  - sandbox.engine: must be one of ${ENGINE_CHOICES.map((name) => `"${name}"`).join(', ')} (got "v8")`,
    );
  });

  it('takes every registered engine from the config, and the option over the config', async () => {
    for (const name of ENGINE_NAMES) {
      const space = await createSpace({ config: resolveConfig({ sandbox: { engine: name } }, { root: '/nowhere', env: {} }) });
      expect(space.engine).toBe(name);
      await space.close();
    }
    const space = await createSpace({
      config: resolveConfig({ sandbox: { engine: 'v8' } }, { root: '/nowhere', env: {} }),
      engine: 'auto',
    });
    expect(space.engine).toBe('auto');
    await space.close();
  });
});

describe('createSpace: where a module comes from', () => {
  it('is named as the source of its kind titles it, else by its label', async () => {
    const space = await createSpace({ config: resolveConfig({}, { root: '/nowhere', env: {} }) });
    expect(space.titleOf({ kind: 'mcp', server: 'stations' })).toBe('MCP server "stations"');
    expect(space.titleOf({ kind: 'std' })).toBe('standard library');
    expect(space.titleOf({ kind: 'json', path: 'tools/crm.json' })).toBe('tools/crm.json');
    expect(space.titleOf({ kind: 'typescript', path: 'capabilities/notes.ts', exportName: 'notes' })).toBe('capabilities/notes.ts');
    // No agent source in this space: the origin's own label.
    expect(space.titleOf({ kind: 'agent', path: 'agents/guide' })).toBe('agents/guide');
    await space.close();
  });
});
