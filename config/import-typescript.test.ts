// A TypeScript capability file outside an ESM package is loaded by tsx as CommonJS: its import of
// 'agent-spaces' must get the ES module already loaded, not a copy that tsx compiles to CommonJS.
// One in an ESM package (or a .mts file) is loaded by tsx's ESM loader under a namespace of its own:
// its import of 'agent-spaces' must get the host's instance too, not one more copy per file.
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
async function space(type?: 'module'): Promise<{ root: string; packageEntry: string }> {
  const root = await makeTempDir('import-typescript');
  if (type) await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'space', private: true, type }));
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
    await writeFile(
      file,
      `import { defineTool, marker } from 'agent-spaces';\nexport const used = marker;\nexport const tool = defineTool({ name: 'tool' as const });\n`,
    );
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

describe('importTypeScript of an ES-module .ts file (tsx namespace of its own)', () => {
  it("gives its `import … from 'agent-spaces'` the host's instance, once, file after file", async () => {
    const { root, packageEntry } = await space('module');
    const loads = (): unknown => Reflect.get(globalThis, `agent-spaces-loads-${path.basename(root)}`);
    const host = (await import(pathToFileURL(packageEntry).href)) as { marker: object; defineTool: unknown };
    expect(loads()).toBe(1);
    const file = path.join(root, 'capabilities', 'tool.ts');
    await writeFile(
      file,
      `import { defineTool, marker } from 'agent-spaces';\nexport const used = marker;\nexport const define = defineTool;\nexport const format = typeof module === 'undefined' ? 'esm' : 'cjs';\nexport default defineTool({ name: 'tool' as const });\n`,
    );
    const loaded = (await importTypeScript(file)) as { used: object; define: unknown; format: string; default: { name: string } };
    expect(loaded.format).toBe('esm');
    expect(loaded.default).toEqual({ name: 'tool' });
    expect(loaded.used).toBe(host.marker);
    expect(loaded.define).toBe(host.defineTool);
    expect(loads()).toBe(1);

    // A second .ts file, and a .mts one in a sub-folder importing a local module: the same instance.
    const second = path.join(root, 'capabilities', 'second.ts');
    await writeFile(second, `import { marker } from 'agent-spaces';\nexport const used = marker;\n`);
    expect(((await importTypeScript(second)) as { used: object }).used).toBe(host.marker);
    await mkdir(path.join(root, 'suite'));
    await writeFile(path.join(root, 'suite', 'helper.ts'), `import { marker } from 'agent-spaces';\nexport const helperMarker = marker;\n`);
    const third = path.join(root, 'suite', 'suite.mts');
    await writeFile(
      third,
      `import { marker } from 'agent-spaces';\nimport { helperMarker } from './helper.ts';\nexport const used = [marker, helperMarker];\n`,
    );
    const [direct, viaHelper] = ((await importTypeScript(third)) as { used: object[] }).used;
    expect(direct).toBe(host.marker);
    expect(viaHelper).toBe(host.marker);
    expect(loads()).toBe(1);
  });

  it('shares it with files imported at the same time (as a space loads its capabilities)', async () => {
    const { root, packageEntry } = await space('module');
    const host = (await import(pathToFileURL(packageEntry).href)) as { marker: object };
    const files = ['a', 'b', 'c', 'd'].map((name) => path.join(root, 'capabilities', `${name}.ts`));
    for (const file of files) await writeFile(file, `import { marker } from 'agent-spaces';\nexport const used = marker;\n`);
    const loaded = (await Promise.all(files.map((file) => importTypeScript(file)))) as { used: object }[];
    for (const module of loaded) expect(module.used).toBe(host.marker);
    expect(Reflect.get(globalThis, `agent-spaces-loads-${path.basename(root)}`)).toBe(1);
  });

  it("loads the file's own modules afresh per import (only the package's entry is shared)", async () => {
    const { root } = await space('module');
    const counter = `agent-spaces-local-${path.basename(root)}`;
    await writeFile(
      path.join(root, 'capabilities', 'local.ts'),
      `globalThis[${JSON.stringify(counter)}] = ((globalThis as any)[${JSON.stringify(counter)}] ?? 0) + 1;\nexport const local = {};\n`,
    );
    const file = path.join(root, 'capabilities', 'tool.ts');
    await writeFile(file, `import { local } from './local.ts';\nexport const used = local;\n`);
    const first = ((await importTypeScript(file)) as { used: object }).used;
    const second = ((await importTypeScript(file)) as { used: object }).used;
    expect(first).not.toBe(second);
    expect(Reflect.get(globalThis, counter)).toBe(2);
  });

  it('still fails naming the package when an ES-module file cannot find agent-spaces', async () => {
    const root = await makeTempDir('import-typescript-esm-missing');
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ type: 'module' }));
    const file = path.join(root, 'tool.ts');
    await writeFile(file, `import { marker } from 'agent-spaces';\nexport const used = marker;\n`);
    await expect(importTypeScript(file)).rejects.toThrow(/agent-spaces/);
  });
});
