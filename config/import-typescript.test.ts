// A TypeScript capability file outside an ESM package is loaded by tsx as CommonJS: its import of
// 'agent-spaces' must get the ES module already loaded, not a copy that tsx compiles to CommonJS.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importTypeScript, unwrapDefault } from './load-config.js';

const folders: string[] = [];
afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

/** Under the system's temporary folder: no package.json above it says "type": "module" (the repository's does). */
async function makeTempDir(prefix: string): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), `agent-spaces-${prefix}-`));
  folders.push(folder);
  return folder;
}

/** A folder without a package.json (CommonJS), with a stand-in `agent-spaces` package that counts its loads. */
async function space(): Promise<{ root: string; packageEntry: string }> {
  const root = await makeTempDir('import-typescript');
  const pkg = path.join(root, 'node_modules', 'agent-spaces');
  await mkdir(pkg, { recursive: true });
  await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: 'agent-spaces', type: 'module', exports: './index.js' }));
  const key = `agent-spaces-loads-${path.basename(root)}`;
  await writeFile(
    path.join(pkg, 'index.js'),
    `globalThis[${JSON.stringify(key)}] = (globalThis[${JSON.stringify(key)}] ?? 0) + 1;\nexport const marker = { loadedAs: typeof module === 'undefined' ? 'esm' : 'cjs' };\nexport function defineTool(tool) { return tool; }\n`,
  );
  await mkdir(path.join(root, 'capabilities'));
  return { root, packageEntry: path.join(pkg, 'index.js') };
}

describe('importTypeScript of a .ts file in a CommonJS folder', () => {
  it("gives its `import … from 'agent-spaces'` the package's ES module as loaded, once", async () => {
    const { root, packageEntry } = await space();
    const host = (await import(pathToFileURL(packageEntry).href)) as { marker: object };
    const file = path.join(root, 'capabilities', 'tool.ts');
    await writeFile(file, `import { defineTool, marker } from 'agent-spaces';\nexport const used = marker;\nexport const tool = defineTool({ name: 'tool' as const });\n`);
    const loaded = unwrapDefault(await importTypeScript(file)) as { used: object; tool: { name: string } };
    expect(loaded.tool).toEqual({ name: 'tool' });
    expect(loaded.used).toEqual({ loadedAs: 'esm' });
    expect(loaded.used).toBe(host.marker);
    expect(Reflect.get(globalThis, `agent-spaces-loads-${path.basename(root)}`)).toBe(1);

    // A second file (its own tsx namespace) shares the same instance.
    const second = path.join(root, 'capabilities', 'second.ts');
    await writeFile(second, `import { marker } from 'agent-spaces';\nexport const used = marker;\n`);
    expect((unwrapDefault(await importTypeScript(second)) as { used: object }).used).toBe(host.marker);
    expect(Reflect.get(globalThis, `agent-spaces-loads-${path.basename(root)}`)).toBe(1);
  });

  it('still loads a file whose agent-spaces cannot be found the way tsx does (the error names the package)', async () => {
    const root = await makeTempDir('import-typescript-missing');
    const file = path.join(root, 'tool.ts');
    await writeFile(file, `import { marker } from 'agent-spaces';\nexport const used = marker;\n`);
    await expect(importTypeScript(file)).rejects.toThrow(/agent-spaces/);
  });
});
