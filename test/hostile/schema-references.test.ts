/**
 * Schemas are data (issue 28, item 10): a property named `__proto__` stays a property through the
 * normaliser, the compiler and the bridge's validation; every reference a valid schema makes resolves
 * (a nested `$id` that refers back to the root, `$ref: "#"` under `unevaluatedProperties`, a `$ref`
 * inside a nested resource, an `$anchor`), in the build's schema check, the declarations and the
 * bridge. Then a healthy tool of the same space runs as before.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const TOOL = {
  name: 'schemas',
  implementation: './impl/schemas.mjs',
  functions: [
    {
      name: 'withProto',
      description: 'A parameter named __proto__.',
      // The "__proto__" property is added to the file's text (see beforeAll).
      parameters: { type: 'object', properties: { b: { type: 'number' } } },
    },
    {
      name: 'nestedId',
      description: 'A nested $id that refers back to the root, and a pointer inside the nested resource.',
      parameters: {
        $id: 'https://example.test/root.json',
        type: 'object',
        properties: {
          child: {
            $id: 'https://example.test/sub/child.json',
            type: 'object',
            properties: {
              back: { $ref: '../root.json' },
              self: { $ref: '#/properties/leaf' },
              leaf: { type: 'string' },
              tip: { $ref: '#tip' },
            },
            $defs: { tip: { $anchor: 'tip', type: 'integer' } },
          },
        },
      },
    },
    {
      name: 'unevaluated',
      description: '$ref: "#" under unevaluatedProperties.',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { name: { type: 'string' } },
        unevaluatedProperties: { $ref: '#' },
      },
    },
  ],
};

const IMPLEMENTATION = `
const echo = (args) => ({ keys: Object.keys(args), args });
export const withProto = echo;
export const nestedId = echo;
export const unevaluated = echo;
`;

const HEALTHY = {
  name: 'healthy',
  implementation: './impl/healthy.mjs',
  functions: [
    {
      name: 'add',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      returns: { type: 'number' },
    },
  ],
};

describe('schemas are data: __proto__ properties and references that must resolve', () => {
  let space: Space;
  let root: string;

  beforeAll(async () => {
    root = await makeTempDir('hostile-schema-refs');
    await mkdir(path.join(root, 'tools', 'impl'), { recursive: true });
    // Written as text: a JS object literal would turn the "__proto__" key into a prototype.
    await writeFile(
      path.join(root, 'tools', 'schemas.json'),
      JSON.stringify(TOOL).replace(
        '"parameters":{"type":"object","properties":{"b"',
        '"parameters":{"type":"object","properties":{"__proto__":{"type":"string","required":true},"b"',
      ),
    );
    await writeFile(path.join(root, 'tools', 'impl', 'schemas.mjs'), IMPLEMENTATION);
    await writeFile(path.join(root, 'tools', 'healthy.json'), JSON.stringify(HEALTHY));
    await writeFile(path.join(root, 'tools', 'impl', 'healthy.mjs'), 'export const add = ({ a, b }) => a + b;\n');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['tools/*.json'] }));
    space = await createSpace({ cwd: root, isolation: 'in-process' });
  }, 60_000);

  afterAll(async () => {
    await space?.close();
  });

  it('builds all three without an error or a warning, the __proto__ property kept and required', async () => {
    const text = await readFile(path.join(root, 'tools', 'schemas.json'), 'utf8');
    expect(text).toContain('"properties":{"__proto__":{"type":"string","required":true}');
    const build = await space.build();
    expect(build.errors).toEqual([]);
    expect(build.warnings.filter((warning) => warning.capability === 'schemas')).toEqual([]);
    const spec = (await space.capabilities()).find((capability) => capability.module === 'schemas');
    const withProto = spec?.functions.find((fn) => fn.name === 'withProto');
    expect(Object.keys(withProto?.inputSchema.properties as object)).toEqual(['__proto__', 'b']);
    expect(withProto?.inputSchema.required).toEqual(['__proto__']);
    const dts = await readFile(path.join(root, '.agent-spaces', 'capabilities', 'schemas', 'index.d.ts'), 'utf8');
    expect(dts).toMatch(/^ {2}__proto__: string;$/m);
    // The nested resource's own pointer and anchor are typed, not unknown.
    expect(dts).toMatch(/self\?: Leaf;/);
    expect(dts).toMatch(/tip\?: Tip;/);
    expect(dts).toMatch(/back\?: NestedIdParams;/);
  }, 120_000);

  it('validates a __proto__ argument as the schema says (a direct call passes it as an own key)', async () => {
    const args = (json: string): unknown => JSON.parse(json);
    const wrong = await space.callTool('schemas.withProto', args('{"__proto__": 5, "b": 1}')).catch((error: unknown) => error);
    expect(wrong).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect((wrong as Error).message).toContain('__proto__');
    const missing = await space.callTool('schemas.withProto', { b: 1 }).catch((error: unknown) => error);
    expect(missing).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(await space.callTool('schemas.withProto', args('{"__proto__": "x", "b": 1}'))).toEqual({
      keys: ['__proto__', 'b'],
      args: args('{"__proto__": "x", "b": 1}'),
    });
  });

  it('validates through the references: back to the root, inside the nested resource, by anchor, under unevaluatedProperties', async () => {
    const ok = { child: { back: { child: { leaf: 'deep' } }, self: 'a', leaf: 'b', tip: 3 } };
    expect(await space.callTool('schemas.nestedId', ok)).toEqual({ keys: ['child'], args: ok });
    for (const bad of [{ child: { back: { child: { leaf: 1 } } } }, { child: { self: 2 } }, { child: { tip: 'no' } }]) {
      await expect(space.callTool('schemas.nestedId', bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENTS' });
    }
    expect(await space.callTool('schemas.unevaluated', { name: 'a', extra: { name: 'b' } })).toMatchObject({ keys: ['name', 'extra'] });
    await expect(space.callTool('schemas.unevaluated', { name: 'a', extra: { name: 1 } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
    });
  });

  it('type-checks and runs a program against those declarations, and the healthy tool still works', async () => {
    const result = await space.run(`
import { nestedId, unevaluated } from '@capabilities/schemas';
import { add } from '@capabilities/healthy';
const a = await nestedId({ child: { self: 'x', tip: 1, back: { child: { leaf: 'y' } } } });
const b = await unevaluated({ name: 'n' });
export default { a: a !== undefined, b: b !== undefined, sum: await add({ a: 2, b: 3 }) };
`);
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual({ a: true, b: true, sum: 5 });
  }, 60_000);
});
