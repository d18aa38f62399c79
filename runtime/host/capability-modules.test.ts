import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_LAYOUT } from '../../core/manifest.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { FIXTURE_OUT_DIR } from '../sandbox.contract.js';
import { listCapabilityModules, resolveCapabilityModule, suggestCapabilityModule, withModuleHint } from './capability-modules.js';

const MODULES = ['crm', 'mcp-everything', 'mcp-stations', 'std', 'std-fs', 'train-schedule'];

describe('suggestCapabilityModule', () => {
  it('finds the module a typo meant: a few edits away, or the same name in another case or spelling', () => {
    expect(suggestCapabilityModule('@capabilities/mcp-everythin', MODULES)).toBe('@capabilities/mcp-everything');
    expect(suggestCapabilityModule('@capabilities/trainSchedule', MODULES)).toBe('@capabilities/train-schedule');
    expect(suggestCapabilityModule('@capabilities/train_schedul', MODULES)).toBe('@capabilities/train-schedule');
    expect(suggestCapabilityModule('@capabilities/std-f', MODULES)).toBe('@capabilities/std-fs');
  });

  it('suggests nothing for a name far from every module, and never a module it was not given', () => {
    expect(suggestCapabilityModule('@capabilities/weather', MODULES)).toBeUndefined();
    expect(suggestCapabilityModule('@capabilities/mcp-everythin', ['crm', 'train-schedule'])).toBeUndefined();
    expect(suggestCapabilityModule('@capabilities/mcp-everythin', [])).toBeUndefined();
  });
});

describe('withModuleHint', () => {
  it("adds the hint to the sandbox's MODULE_NOT_FOUND and to TypeScript's TS2307", () => {
    expect(() => resolveCapabilityModule(FIXTURE_OUT_DIR, '@capabilities/crn', undefined)).toThrow(
      /^module "@capabilities\/crn" is not in the build: fix the import/,
    );
    let message = '';
    try {
      resolveCapabilityModule(FIXTURE_OUT_DIR, '@capabilities/crn', undefined);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(withModuleHint(message, ['crm', 'math'])).toBe(
      'module "@capabilities/crn" is not in the build (did you mean "@capabilities/crm"?): fix the import (search_tools and capabilities.d.ts name the modules), or rebuild the capabilities',
    );
    expect(withModuleHint("Cannot find module '@capabilities/mcp-everythin' or its corresponding type declarations.", MODULES)).toBe(
      "Cannot find module '@capabilities/mcp-everythin' or its corresponding type declarations. Did you mean '@capabilities/mcp-everything'?",
    );
  });

  it('leaves other messages, and those with nothing near, as they are', () => {
    expect(withModuleHint("Cannot find module 'node:fs' or its corresponding type declarations.", MODULES)).toBe(
      "Cannot find module 'node:fs' or its corresponding type declarations.",
    );
    expect(withModuleHint('module "@capabilities/zzz" is not in the build: fix the import', MODULES)).toBe(
      'module "@capabilities/zzz" is not in the build: fix the import',
    );
    expect(withModuleHint('x is not defined', MODULES)).toBe('x is not defined');
  });
});

describe('listCapabilityModules', () => {
  it('lists the modules of a build, and none where there is no build', () => {
    expect(listCapabilityModules(FIXTURE_OUT_DIR)).toEqual(['crm', 'math']);
    expect(listCapabilityModules('/nonexistent/agent-spaces-build')).toEqual([]);
  });
});

describe('resolveCapabilityModule for sandbox modules (sandbox.modules)', () => {
  let outDir: string;

  beforeAll(async () => {
    outDir = await makeTempDir('sandbox-module-resolution');
    const modulesDir = path.join(outDir, BUILD_LAYOUT.sandboxModulesDir);
    await mkdir(path.join(modulesDir, 'bundles', 'tiny@1.0.0'), { recursive: true });
    await writeFile(path.join(modulesDir, 'bundles', 'tiny@1.0.0', 'index.abc.js'), 'export const tiny = 1;');
    await writeFile(path.join(outDir, 'secret.js'), 'export const secret = 1;');
    const entry = (file: string) => ({ package: 'tiny', version: '1.0.0', file, bytes: 22 });
    const manifest = {
      version: 1,
      modules: { tiny: entry('bundles/tiny@1.0.0/index.abc.js'), 'tiny/escape': entry('../secret.js') },
      inputs: { tiny: '1.0.0' },
    };
    await writeFile(path.join(outDir, BUILD_LAYOUT.sandboxModulesFile), JSON.stringify(manifest));
  });

  it('resolves a listed specifier to its bundle', () => {
    const resolved = resolveCapabilityModule(outDir, 'tiny', undefined);
    expect(resolved.path).toBe(path.join(outDir, 'modules', 'bundles', 'tiny@1.0.0', 'index.abc.js'));
    expect(resolved.source).toBe('export const tiny = 1;');
  });

  it('refuses any other bare specifier, naming the modules the build bundled and the setting', () => {
    for (const specifier of ['lodash', 'fs', 'node:fs', 'constructor', 'tiny/escape']) {
      expect(() => resolveCapabilityModule(outDir, specifier, undefined)).toThrow(
        `import of "${specifier}" refused: programs may only import @capabilities/<name> modules of the build, or the npm modules this build bundled: "tiny", "tiny/escape"; an npm package must be listed in sandbox.modules in the config (and the capabilities rebuilt)`,
      );
    }
    expect(() => resolveCapabilityModule(FIXTURE_OUT_DIR, 'tiny', undefined)).toThrow(
      'import of "tiny" refused: programs may only import @capabilities/<name> modules of the build (this build bundles no npm modules)',
    );
  });
});
