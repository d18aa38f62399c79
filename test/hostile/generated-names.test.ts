/**
 * Hostile names (issue 28, item 5): a tool named after a global the generated module relies on
 * (`globalThis`, `Object`, …), after the module's own helpers (`call`, `call$`, `functions$`, …) or
 * after members of Object.prototype must not shadow anything: every function of that module still
 * works, through the real sandbox (worker process, isolated-vm), and its declarations type-check.
 * Then a healthy module of the same space runs as before.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DEFINE_TOOL = pathToFileURL(path.join(REPO, 'core/define-tool.ts')).href;

/** Tool names a source may choose, aimed at what a generated module uses or might use. */
const HOSTILE = [
  'globalThis',
  'Object',
  'JSON',
  'Promise',
  'Symbol',
  'Reflect',
  'Function',
  'Array',
  'Error',
  'undefined',
  'eval',
  'call',
  '__call',
  'call$',
  'functions$',
  'namespace$',
  '__agentSpaces',
  'agentSpaces',
  'freeze',
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'then',
  'default',
  'names',
];

const HOSTILE_TOOL = `import { defineFunction, defineTool } from '${DEFINE_TOOL}';
const echo = (name) => defineFunction({
  parameters: { type: 'object', properties: { n: { type: 'number' } } },
  returns: { type: 'object', properties: { tool: { type: 'string' }, n: { type: 'number' } }, required: ['tool'] },
  handler: ({ n }) => ({ tool: name, n: n ?? 0 }),
});
const functions = {};
for (const name of ${JSON.stringify(HOSTILE)}) Object.defineProperty(functions, name, { value: echo(name), enumerable: true });
export const names = defineTool({ name: 'names', description: 'Functions with hostile names.', functions });
`;

const HEALTHY_TOOL = `import { defineFunction, defineTool } from '${DEFINE_TOOL}';
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

describe('hostile names: a function named after what the generated module uses', () => {
  let space: Space;
  let root: string;

  beforeAll(async () => {
    root = await makeTempDir('hostile-names');
    await mkdir(path.join(root, 'capabilities'));
    await writeFile(path.join(root, 'capabilities', 'names.ts'), HOSTILE_TOOL);
    await writeFile(path.join(root, 'capabilities', 'healthy.ts'), HEALTHY_TOOL);
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.ts'] }));
    space = await createSpace({ cwd: root });
    const build = await space.build();
    expect(build.errors).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    await space?.close();
  });

  it('keeps every function (renamed where JavaScript needs it), each bound to its own tool', async () => {
    const spec = (await space.capabilities()).find((capability) => capability.module === 'names');
    expect(spec?.functions.map((fn) => fn.toolName).sort()).toEqual([...HOSTILE].sort());
    expect(spec?.functions.find((fn) => fn.toolName === 'globalThis')?.name).toBe('globalThis');
    const proxy = await readFile(path.join(root, '.agent-spaces', 'capabilities', 'names', 'index.js'), 'utf8');
    // No function is a binding of the module's scope.
    expect(proxy).not.toMatch(/^export (?:function|const) /m);
  });

  it('runs every function of the module in the real sandbox, by name and through the namespace, after a type-check', async () => {
    const spec = (await space.capabilities()).find((capability) => capability.module === 'names');
    const functions = (spec?.functions ?? []).map((fn) => ({ name: fn.name, tool: fn.toolName }));
    expect(functions.length).toBe(HOSTILE.length);
    const imports = functions.map((fn) => fn.name).join(', ');
    const result = await space.run(`
import mod, { ${imports} } from '@capabilities/names';
const direct: string[] = [];
${functions.map((fn, index) => `direct.push((await ${fn.name}({ n: ${index} })).tool);`).join('\n')}
const viaNamespace: string[] = [];
for (const name of Object.keys(mod).sort()) viaNamespace.push((await (mod as unknown as Record<string, (p: object) => Promise<{ tool: string }>>)[name]!({})).tool);
export default { direct, viaNamespace };
`);
    expect(result.error).toBeUndefined();
    expect(result.success).toBe(true);
    expect(result.result).toEqual({
      direct: functions.map((fn) => fn.tool),
      viaNamespace: [...functions].sort((a, b) => (a.name < b.name ? -1 : 1)).map((fn) => fn.tool),
    });
  }, 120_000);

  it('leaves the healthy module of the same space working', async () => {
    const result = await space.run(`import { add } from '@capabilities/healthy';\nexport default await add({ a: 2, b: 3 });`);
    expect(result.error).toBeUndefined();
    expect(result.result).toBe(5);
  }, 60_000);
});
