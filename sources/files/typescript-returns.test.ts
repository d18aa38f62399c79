// defineTool's seed form `returns: {} as Trip[]`: the result type comes from the TypeScript source.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities } from '../../compiler/index.js';
import { resolveConfig, type ResolvedConfig } from '../../config/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { REPO } from '../../test/support/example-space.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createFilesSource } from './files-source.js';

const toolFile = (core: string): string => `import { defineFunction, defineTool } from '${core}';

/** A train trip. */
export interface Trip {
  /** Departure station. */
  from: string;
  to: string;
  minutes: number;
}

export const trips = defineTool({
  name: 'trips',
  functions: {
    find: {
      description: 'Finds trips from a station.',
      parameters: { type: 'object', properties: { from: { type: 'string' } }, required: ['from'] },
      returns: {} as Trip[],
      handler: (params: { from: string }) => [{ from: params.from, to: 'ZH', minutes: 56 }],
    },
    broken: defineFunction({
      returns: {} as Trip,
      handler: () => ({ from: 'BE', to: 'ZH', minutes: 'fifty-six' }),
    }),
  },
});
`;

describe("defineTool's returns: {} as T", () => {
  let root: string;
  let config: ResolvedConfig;
  let space: Space;

  beforeAll(async () => {
    root = await makeTempDir('ts-returns');
    const core = path.relative(root, path.join(REPO, 'core/index.js')).split(path.sep).join('/');
    await writeFile(path.join(root, 'trips.ts'), toolFile(core));
    config = resolveConfig({ capabilities: ['trips.ts'] }, { root, env: {} });
    space = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
  }, 120_000);

  afterAll(async () => {
    await space?.close();
  });

  it('declares the TypeScript type, with its name and TSDoc, as the result', async () => {
    const build = await space.build({ force: true });
    expect(build.errors).toEqual([]);
    const dts = await readFile(path.join(config.outDir, 'capabilities', 'trips', 'index.d.ts'), 'utf8');
    expect(dts).toContain('export type FindResult = Trip[];\n');
    expect(dts).toContain(
      '/** A train trip. */\nexport interface Trip {\n  /** Departure station. */\n  from: string;\n  to: string;\n  minutes: number;\n}\n',
    );
    expect(dts).toContain('export type BrokenResult = Trip;\n');
  });

  it('has the bridge check results against it', async () => {
    const result = await space.run(
      `import { find, broken } from '@capabilities/trips';\nconst found = await find({ from: 'BE' });\nlet code = '';\ntry { await broken(); } catch (error) { code = (error as { code: string }).code; }\nexport default [found, code];\n`,
    );
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.result).toEqual([[{ from: 'BE', to: 'ZH', minutes: 56 }], 'INVALID_RESULT']);
  });

  it('fails the file when the declared type is not JSON data, naming the function and why', async () => {
    const other = await makeTempDir('ts-returns-date');
    const core = path.relative(other, path.join(REPO, 'core/index.js')).split(path.sep).join('/');
    await writeFile(
      path.join(other, 'when.ts'),
      `import { defineTool } from '${core}';\nexport const when = defineTool({ name: 'when', functions: { now: { returns: {} as Date, handler: () => new Date() } } });\n`,
    );
    const result = await buildCapabilities({
      config: resolveConfig({ capabilities: ['when.ts'] }, { root: other, env: {} }),
      sources: [createFilesSource()],
    });
    expect(result.errors.map((failure) => failure.message).join('\n')).toContain(
      'when.ts#when.now.returns: the type Date is not JSON data: a Date (pass an ISO string instead)',
    );
  });
});
