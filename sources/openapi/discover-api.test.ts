import { copyFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { secretsOfConfig } from '../index.js';
import { CompileError } from '../../core/index.js';
import { createSpace, isBuildStale } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { discoverApi, openapiSource } from './index.js';

const PETSTORE = path.join(import.meta.dirname, '__fixtures__', 'petstore.yaml');

async function specFile(name: string, text: string): Promise<string> {
  const file = path.join(await makeTempDir('openapi-spec'), name);
  await writeFile(file, text);
  return file;
}

function minimal(paths: Record<string, unknown>, components: Record<string, unknown> = {}): string {
  return JSON.stringify({ openapi: '3.0.3', info: { title: 'T', version: '1' }, paths, components });
}

const ok = (schema: unknown) => ({ '200': { description: 'ok', content: { 'application/json': { schema } } } });

describe('discoverApi: failures name the API and the place', () => {
  it('a $ref to nothing: the pointer where it is written', async () => {
    const spec = await specFile(
      'broken.json',
      minimal({ '/pets': { get: { operationId: 'listPets', responses: ok({ $ref: '#/components/schemas/Nope' }) } } }),
    );
    const error = await discoverApi('broken', { spec }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CompileError);
    expect((error as Error).message).toContain(
      `openapi "broken" (${spec}) is not a valid OpenAPI 3.0 document: at /paths/~1pets/get/responses/200/content/application~1json/schema/$ref: Missing $ref pointer "#/components/schemas/Nope"`,
    );
  });

  it('a Swagger 2.0 document, a YAML syntax error, a missing file, a structural error', async () => {
    const swagger = await specFile('old.yaml', 'swagger: "2.0"\ninfo: { title: T, version: "1" }\npaths: {}\n');
    await expect(discoverApi('old', { spec: swagger })).rejects.toThrow(
      `openapi "old" (${swagger}) at /swagger: Swagger 2.0 is not supported; convert the spec to OpenAPI 3 first`,
    );
    const yaml = await specFile('bad.yaml', 'openapi: 3.1.0\ninfo:\n  title: [unclosed\n');
    await expect(discoverApi('bad', { spec: yaml })).rejects.toThrow(
      /openapi "bad" \(.*bad\.yaml\): the spec is neither valid JSON nor YAML: .*at line 4, column 1/s,
    );
    await expect(discoverApi('gone', { spec: '/nowhere/spec.yaml' })).rejects.toThrow(
      'openapi "gone" (/nowhere/spec.yaml): no spec file at /nowhere/spec.yaml',
    );
    const structure = await specFile('structure.json', minimal({ '/pets': { get: { operationId: 'listPets' } } }));
    await expect(discoverApi('structure', { spec: structure })).rejects.toThrow(
      `openapi "structure" (${structure}) is not a valid OpenAPI 3.0 document: at /paths/~1pets/get: must have required property 'responses'`,
    );
    const badEnum = await specFile(
      'enum.yaml',
      'openapi: 3.0.3\ninfo: { title: T, version: "1" }\npaths:\n  /pets:\n    get:\n      parameters:\n        - { name: q, in: query, style: sideways, schema: { type: string } }\n      responses: { "200": { description: ok } }\n',
    );
    await expect(discoverApi('enum', { spec: badEnum })).rejects.toThrow(
      /is not a valid OpenAPI 3\.0 document: at \/paths\/~1pets\/get\/parameters\/0(\/style)?: /,
    );
  });

  it('a failing API is one failed source of the build; the others build', async () => {
    const root = await makeTempDir('openapi-failing');
    const broken = await specFile('broken.json', minimal({ '/a': { get: { responses: ok({ $ref: '#/components/schemas/Gone' }) } } }));
    const config = resolveConfig(
      { capabilities: [], openapi: { broken: { spec: broken }, petstore: { spec: PETSTORE, include: { tags: ['store'] } } } },
      { root },
    );
    const space = await createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
    try {
      const build = await space.build();
      expect(build.errors).toHaveLength(1);
      expect(build.errors[0]?.source).toBe('openapi:broken');
      expect(build.errors[0]?.message).toMatch(
        /^openapi "broken" \(.*\) is not a valid OpenAPI 3\.0 document: at \/paths\/~1a\/get\/responses\/200\/content\/application~1json\/schema\/\$ref:/,
      );
      expect((await space.capabilities()).map((spec) => spec.module)).toEqual(['openapi-petstore']);
    } finally {
      await space.close();
    }
  });
});

describe('openapi specs and freshness', () => {
  it('a build is stale once a local spec changed after it', async () => {
    const root = await makeTempDir('openapi-stale');
    await copyFile(PETSTORE, path.join(root, 'petstore.yaml'));
    const config = resolveConfig(
      { capabilities: [], openapi: { petstore: { spec: 'petstore.yaml', include: { tags: ['store'] } } } },
      { root },
    );
    const space = await createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
    try {
      await space.build();
      expect(await isBuildStale(config)).toBe(false);
      const later = new Date(Date.now() + 60_000);
      await utimes(path.join(root, 'petstore.yaml'), later, later);
      expect(await isBuildStale(config)).toBe(true);
    } finally {
      await space.close();
    }
  });
});

describe('discoverApi: schemas', () => {
  it('keeps recursive schemas finite: a component, and a schema a $ref reaches inside a path, become named $defs', async () => {
    const pointer = '#/paths/~1tree/get/responses/200/content/application~1json/schema';
    const spec = await specFile(
      'cycles.json',
      minimal(
        {
          '/node': { get: { operationId: 'getNode', responses: ok({ $ref: '#/components/schemas/Node' }) } },
          '/tree': { get: { operationId: 'getTree', responses: ok({ type: 'object', properties: { self: { $ref: pointer } } }) } },
        },
        {
          schemas: {
            Node: {
              type: 'object',
              properties: { next: { $ref: '#/components/schemas/Node' }, value: { type: 'string', nullable: true } },
            },
          },
        },
      ),
    );
    const { capability, warnings } = await discoverApi('cycles', { spec });
    const getNode = capability.functions.find((fn) => fn.toolName === 'getNode');
    expect(getNode?.outputSchema).toEqual({
      $ref: '#/$defs/Node',
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' }, value: { type: ['string', 'null'] } } } },
    });
    const getTree = capability.functions.find((fn) => fn.toolName === 'getTree');
    expect(getTree?.outputSchema).toEqual({
      $ref: '#/$defs/tree_get_200_application_json',
      $defs: { tree_get_200_application_json: { type: 'object', properties: { self: { $ref: '#/$defs/tree_get_200_application_json' } } } },
    });
    expect(warnings).toEqual([]);
  });

  it('shares a schema used at several places once (a spec of n levels of two uses each stays linear, not 2^n)', async () => {
    const properties: Record<string, unknown> = { A0: { type: 'string' } };
    const level = (k: number) => ({ $ref: `#/components/schemas/Holder/properties/A${k}` });
    for (let k = 1; k <= 12; k += 1) properties[`A${k}`] = { type: 'object', properties: { l: level(k - 1), r: level(k - 1) } };
    const text = minimal(
      { '/x': { get: { operationId: 'deep', responses: ok(level(12)) } } },
      { schemas: { Holder: { type: 'object', properties } } },
    );
    const { capability } = await discoverApi('deep', { spec: await specFile('deep.json', text) });
    const schema = capability.functions[0]?.outputSchema as { $ref: string; $defs: Record<string, { properties?: { l?: unknown } }> };
    expect(schema.$ref).toBe('#/$defs/Holder_A12');
    expect(schema.$defs.Holder_A12?.properties?.l).toEqual({ $ref: '#/$defs/Holder_A11' });
    expect(Object.keys(schema.$defs)).toHaveLength(13);
    expect(JSON.stringify(schema).length).toBeLessThan(text.length * 2);
  });

  it('turns OpenAPI 3.0 keywords into JSON Schema: nullable, boolean exclusive bounds, example', async () => {
    const spec = await specFile(
      'keywords.json',
      minimal({
        '/n': {
          get: {
            operationId: 'getN',
            parameters: [{ name: 'n', in: 'query', schema: { type: 'number', minimum: 0, exclusiveMinimum: true, example: 3 } }],
            responses: ok({ type: 'integer', enum: [1, 2], nullable: true }),
          },
        },
      }),
    );
    const { capability } = await discoverApi('keywords', { spec });
    const [fn] = capability.functions;
    expect((fn?.inputSchema.properties as Record<string, unknown>).n).toEqual({ type: 'number', exclusiveMinimum: 0, examples: [3] });
    expect(fn?.outputSchema).toEqual({ type: ['integer', 'null'], enum: [1, 2, null] });
  });

  it('cuts configured header values out of what it describes, and warns about names include/exclude do not find', async () => {
    const spec = await specFile(
      'leaky.json',
      minimal({
        '/me': { get: { operationId: 'me', description: 'Call with Bearer tok-1234567890abc', responses: ok({ type: 'string' }) } },
      }),
    );
    const { capability, warnings } = await discoverApi('leaky', {
      spec,
      headers: { Authorization: 'Bearer tok-1234567890abc' },
      include: { operations: ['me', 'mee'] },
    });
    expect(capability.functions[0]?.description).toBe('Call with [REDACTED: header Authorization]');
    expect(warnings.map((warning) => warning.message)).toEqual(['/paths: include.operations names "mee", which the spec does not have']);
  });

  it("counts header values and URL credentials of every API among the host's secrets (redacted from errors, events, traces)", () => {
    const config = resolveConfig(
      {
        capabilities: [],
        openapi: { gh: { spec: 'https://specs.test/gh.yaml?token=spec-token-42', headers: { Authorization: 'Bearer ${GH_TOKEN}' } } },
      },
      { root: '/tmp', env: { GH_TOKEN: 'ghp_0123456789abcdef' } },
    );
    const secrets = secretsOfConfig(config, { env: {} }).map((secret) => secret.value);
    expect(secrets).toContain('ghp_0123456789abcdef');
    expect(secrets).toContain('Bearer ghp_0123456789abcdef');
    expect(secrets).toContain('spec-token-42');
  });
});
