/**
 * npm modules inside the sandbox (`sandbox.modules`), against real packages installed from the npm
 * registry into the test's own folder: built (and refused) by the build, imported by programs on every
 * engine in both placements, type-checked against the packages' own declarations, and given no
 * authority the program lacks.
 */
import { execFile } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig, type ResolvedConfig } from '../../config/index.js';
import { BUILD_LAYOUT, CompileError, parseSandboxModules } from '../../core/index.js';
import { ENGINE_NAMES } from '../../runtime/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { buildSandboxModules, readSandboxModules, sandboxModulesStale } from './index.js';

const run = promisify(execFile);
const MODULES = ['date-fns', 'lodash-es', 'lodash-es/chunk', 'zod'];
const PACKAGES = ['date-fns@4.1.0', 'lodash-es@4.17.21', '@types/lodash-es@4.17.12', 'zod@3.25.76', 'fs-extra@11.3.0'];

let root: string;

function configOf(sandbox: Record<string, unknown>, outDir = '.agent-spaces'): ResolvedConfig {
  return resolveConfig({ capabilities: [], outDir, sandbox }, { root });
}

async function buildError(config: ResolvedConfig): Promise<CompileError> {
  const error = await buildSandboxModules(config).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CompileError);
  return error as CompileError;
}

beforeAll(async () => {
  root = await makeTempDir('sandbox-modules');
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'space', private: true }));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // Real packages from the npm registry, through npm's cache when it holds these exact versions (npm
  // then skips asking the registry for their metadata again: the tarballs are the same, by integrity).
  await run(npm, ['install', '--prefix', root, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...PACKAGES], {
    cwd: root,
  });
}, 300_000);

describe('building sandbox.modules', () => {
  it('bundles each listed specifier into one module, copies the declarations, and reuses both while nothing changed', async () => {
    const config = configOf({ modules: MODULES });
    const first = await buildSandboxModules(config);
    expect(first.modules).toEqual([...MODULES].sort());
    expect(first.bundled).toEqual([...MODULES].sort());
    expect(first.typed).toEqual(expect.arrayContaining(['date-fns', 'zod', '@types/lodash-es', '@types/lodash']));
    // A subpath is its own, smaller bundle.
    expect(first.bytes['lodash-es/chunk']).toBeLessThan((first.bytes['lodash-es'] ?? 0) / 10);
    const manifest = await readSandboxModules(config.outDir);
    expect(manifest?.modules['date-fns']).toMatchObject({ package: 'date-fns', version: '4.1.0' });
    expect(manifest?.inputs['zod']).toMatch(/^3\.25\.76 sha512-/);
    const bundle = await readFile(path.join(config.outDir, BUILD_LAYOUT.sandboxModulesDir, manifest?.modules['zod']?.file ?? ''), 'utf8');
    expect(bundle).not.toMatch(/\bfrom\s*["']|\bimport\s*\(|\brequire\(/);

    const again = await buildSandboxModules(config);
    expect(again.bundled).toEqual([]);
    expect(again.bytes).toEqual(first.bytes);
    expect(await sandboxModulesStale(config)).toBe(false);
    expect(await sandboxModulesStale(configOf({ modules: ['date-fns'] }))).toBe(true);

    // Another version of an installed package makes the build stale, and only that bundle is made again.
    const installed = path.join(root, 'node_modules', 'lodash-es', 'package.json');
    const original = await readFile(installed, 'utf8');
    await writeFile(installed, original.replace('"version": "4.17.21"', '"version": "4.17.99"'));
    try {
      expect(await sandboxModulesStale(config)).toBe(true);
      const rebuilt = await buildSandboxModules(config);
      expect(rebuilt.bundled).toEqual(['lodash-es', 'lodash-es/chunk']);
    } finally {
      await writeFile(installed, original);
    }
  }, 120_000);

  it('fails the build for a package that needs Node, naming the import chain, and leaves the previous output as it was', async () => {
    const config = configOf({ modules: ['date-fns'] }, 'refusal-out');
    await buildSandboxModules(config);
    const manifestFile = path.join(config.outDir, BUILD_LAYOUT.sandboxModulesFile);
    const before = await readFile(manifestFile, 'utf8');
    const error = await buildError(configOf({ modules: ['date-fns', 'fs-extra'] }, 'refusal-out'));
    expect(error.code).toBe('SANDBOX_MODULE_REFUSED');
    expect(error.message).toMatch(/^sandbox module "fs-extra" imports the Node built-in "[a-z]+", which the sandbox does not have/);
    expect(error.message).toMatch(/import chain: fs-extra → node_modules\/fs-extra\/lib\/index\.js → .* → [a-z]+\)/);
    expect(error.message).toContain('fs');
    expect(await readFile(manifestFile, 'utf8')).toBe(before);
  }, 60_000);

  it('refuses Node built-ins, names that are no package, packages not installed, and bundles over the size cap', async () => {
    expect((await buildError(configOf({ modules: ['node:fs'] }))).message).toBe(
      'sandbox.modules[0] ("node:fs") is a Node built-in: the sandbox has no node:fs, and no module brings it in',
    );
    expect((await buildError(configOf({ modules: ['zod', 'child_process'] }))).message).toContain(
      'sandbox.modules[1] ("child_process") is a Node built-in',
    );
    expect((await buildError(configOf({ modules: ['./local.js'] }))).code).toBe('SANDBOX_MODULE_INVALID');
    expect((await buildError(configOf({ modules: ['zod', 'zod'] }))).message).toBe('sandbox.modules[1] ("zod") is listed twice');
    const missing = await buildError(configOf({ modules: ['left-pad-not-installed'] }));
    expect(missing.code).toBe('SANDBOX_MODULE_NOT_INSTALLED');
    expect(missing.message).toContain('run `npm install left-pad-not-installed` there');
    const large = await buildError(configOf({ modules: ['zod'], maxModuleBytes: 50_000 }, 'large-out'));
    expect(large.code).toBe('SANDBOX_MODULE_TOO_LARGE');
    expect(large.message).toMatch(/^sandbox module "zod" bundles to \d+ KiB, over sandbox\.maxModuleBytes \(49 KiB\)/);
    expect(await stat(path.join(root, 'large-out')).catch(() => undefined)).toBeUndefined();
  }, 60_000);
});

const PROGRAM = `
import { addDays, format } from 'date-fns';
import chunk from 'lodash-es/chunk';
import { sortBy } from 'lodash-es';
import { z } from 'zod';
const Order = z.object({ id: z.string(), total: z.number() });
const day = addDays(new Date(Date.UTC(2024, 0, 30, 12)), 3);
return {
  day: format(day, 'yyyy-MM-dd'),
  pages: chunk(sortBy([5, 3, 1, 4, 2]), 2),
  valid: Order.safeParse({ id: 'a', total: 3 }).success,
  invalid: Order.safeParse({ id: 'a', total: 'x' }).error?.issues[0]?.path,
};`;

const HOSTILE = `
import { z } from 'zod';
import { identity } from 'lodash-es';
const g = globalThis as Record<string, unknown>;
const loaded = await (new Function('return import("fs")') as () => Promise<unknown>)().then(
  () => 'loaded',
  () => 'refused',
);
return { process: typeof g.process, require: typeof g.require, fs: loaded, zod: typeof z.string, same: identity(1) };`;

describe.each(['in-process', 'worker'] as const)('programs importing sandbox modules (%s)', (isolation) => {
  let space: Space;

  beforeAll(async () => {
    space = await createSpace({ config: configOf({ modules: MODULES }, `space-${isolation}`), isolation });
    const build = await space.build();
    expect(build.errors).toEqual([]);
    expect(build.sandboxModules.modules).toEqual([...MODULES].sort());
  }, 120_000);

  afterAll(async () => {
    await space?.close();
  });

  it.each(ENGINE_NAMES)(
    'run on %s with the packages working as on Node',
    async (engine) => {
      const result = await space.run(PROGRAM, { engine });
      expect(result.error).toBeUndefined();
      expect(result.engine?.name).toBe(engine);
      expect(result.result).toEqual({ day: '2024-02-02', pages: [[1, 2], [3, 4], [5]], valid: true, invalid: ['total'] });
    },
    60_000,
  );

  it.each(ENGINE_NAMES)(
    'give a module on %s nothing the program lacks: no process, no require, no import of fs',
    async (engine) => {
      const result = await space.run(HOSTILE, { engine });
      expect(result.error).toBeUndefined();
      expect(result.result).toEqual({ process: 'undefined', require: 'undefined', fs: 'refused', zod: 'function', same: 1 });
    },
    60_000,
  );

  it.each(ENGINE_NAMES)(
    "count a module's work on %s against the run's memory limit",
    async (engine) => {
      // Grows in small steps, each made by the module (as the sandbox contract's memory case does).
      const code =
        "import { chunk, range } from 'lodash-es';\nconst keep: number[][][] = [];\nwhile (true) keep.push(chunk(range(0, 1000), 10));";
      const result = await space.run(code, { engine, limits: { memoryLimitMb: 16 } });
      expect(result.success).toBe(false);
      expect(result.error?.code).toBe('MEMORY_LIMIT');
    },
    60_000,
  );

  it.each(ENGINE_NAMES)(
    'refuse on %s a package the build did not bundle, naming those it did',
    async (engine) => {
      const result = await space.run("import { readFile } from 'fs-extra';\nreturn typeof readFile;", { engine, check: false });
      expect(result.error?.code).toBe('IMPORT_REFUSED');
      expect(result.error?.message).toContain('import of "fs-extra" refused');
      expect(result.error?.message).toContain('"date-fns", "lodash-es", "lodash-es/chunk", "zod"');
      expect(result.error?.message).toContain('sandbox.modules');
      const builtin = await space.run("import { readFileSync } from 'node:fs';\nreturn typeof readFileSync;", { engine, check: false });
      expect(builtin.error).toMatchObject({ code: 'PROGRAM_REFUSED', line: 1 });
    },
    60_000,
  );
});

describe('type-checking programs that import sandbox modules', () => {
  let space: Space;

  beforeAll(async () => {
    space = await createSpace({ config: configOf({ modules: MODULES }, 'check-out'), isolation: 'in-process' });
    await space.build();
  }, 120_000);

  afterAll(async () => {
    await space?.close();
  });

  it("reports a misuse with the package's own type error, where it is", async () => {
    const dates = await space.run("import { format } from 'date-fns';\n\nreturn format(new Date());");
    expect(dates.error).toMatchObject({ code: 'TYPE_CHECK_FAILED', line: 3 });
    expect(dates.error?.diagnostics?.[0]).toMatchObject({ code: 2554, message: 'Expected 2-3 arguments, but got 1.' });
    const schema = await space.run("import { z } from 'zod';\nconst name = z.string().min('three');\nreturn name.parse('x');");
    expect(schema.error?.diagnostics?.[0]).toMatchObject({ line: 2, code: 2345 });
    expect(schema.error?.diagnostics?.[0]?.message).toContain("Argument of type 'string' is not assignable to parameter of type 'number'");
    // @types/lodash-es gives lodash-es its types.
    const lodash = await space.run("import { sortBy } from 'lodash-es';\nconst sorted: string[] = sortBy([3, 1]);\nreturn sorted;");
    expect(lodash.error?.diagnostics?.[0]).toMatchObject({ line: 2, code: 2322 });
  }, 60_000);

  it('checks a correct program, and refuses an import of a package that is installed but not listed', async () => {
    const fine = await space.run(PROGRAM);
    expect(fine.error).toBeUndefined();
    // @types/lodash is present (as @types/lodash-es's dependency), yet lodash is not a sandbox module.
    const unlisted = await space.run("import { sortBy } from 'lodash';\nreturn sortBy([2, 1]);");
    expect(unlisted.error?.code).toBe('TYPE_CHECK_FAILED');
    expect(unlisted.error?.diagnostics?.[0]?.message).toContain('import of "lodash" refused: the build bundles no such npm module');
  }, 60_000);

  it('reads the list the build wrote', async () => {
    const manifest = parseSandboxModules(
      JSON.parse(await readFile(path.join(space.config.outDir, BUILD_LAYOUT.sandboxModulesFile), 'utf8')),
    );
    expect(Object.keys(manifest?.modules ?? {})).toEqual([...MODULES].sort());
  });
});
