import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.js';
import { BUILD_LAYOUT } from '../core/index.js';
import { buildCapabilities, createSpace, isBuildStale } from '../space/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';

const tool = (name: string) =>
  JSON.stringify({ name, description: name, implementation: './impl.ts', parameters: { type: 'object', properties: {} } });

async function spaceWithTools(names: string[]): Promise<string> {
  const root = await makeTempDir('build-stale');
  await mkdir(path.join(root, 'tools'));
  await writeFile(
    path.join(root, 'tools/impl.ts'),
    names.map((name) => `export async function ${name}() { return '${name}'; }`).join('\n') + '\n',
  );
  for (const name of names) await writeFile(path.join(root, `tools/${name}.json`), tool(name));
  return root;
}

describe('isBuildStale: the set of input files', () => {
  it('is stale once a tool file was deleted, renamed or added since the build (its time alone would not say)', async () => {
    const root = await spaceWithTools(['alpha', 'beta']);
    const config = resolveConfig({ capabilities: ['tools/*.json'] }, { root, env: {} });
    expect(await isBuildStale(config)).toBe(true); // never built
    await buildCapabilities({ config });
    expect(await isBuildStale(config)).toBe(false);

    await rm(path.join(root, 'tools/beta.json'));
    expect(await isBuildStale(config)).toBe(true);
    await buildCapabilities({ config });
    expect(await isBuildStale(config)).toBe(false);

    await rename(path.join(root, 'tools/alpha.json'), path.join(root, 'tools/gamma.json'));
    expect(await isBuildStale(config)).toBe(true);
  });

  it('judges a build that recorded no inputs (an older one) by times alone', async () => {
    const root = await spaceWithTools(['alpha', 'beta']);
    const config = resolveConfig({ capabilities: ['tools/*.json'] }, { root, env: {} });
    await buildCapabilities({ config });
    await rm(path.join(config.outDir, BUILD_LAYOUT.inputsFile));
    await rm(path.join(root, 'tools/beta.json'));
    expect(await isBuildStale(config)).toBe(false);
  });

  it('a space whose tool file was deleted rebuilds before its next run instead of failing to load the deleted tool', async () => {
    const root = await spaceWithTools(['alpha', 'beta']);
    const config = resolveConfig({ capabilities: ['tools/*.json'] }, { root, env: {} });
    await buildCapabilities({ config });
    await rm(path.join(root, 'tools/beta.json'));
    await writeFile(path.join(root, 'tools/impl.ts'), "export async function alpha() { return 'alpha'; }\n");
    const space = await createSpace({ config, isolation: 'in-process' });
    try {
      const result = await space.run("import { alpha } from '@capabilities/alpha';\nreturn await alpha({});", { check: false });
      expect(result).toMatchObject({ success: true, result: 'alpha' });
      const modules = (await space.capabilities()).map((spec) => spec.module);
      expect(modules).toContain('alpha');
      expect(modules).not.toContain('beta');
    } finally {
      await space.close();
    }
  });
});
