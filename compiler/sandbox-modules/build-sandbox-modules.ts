/**
 * The build step of `sandbox.modules`: each listed specifier bundled into one ES module under
 * `<outDir>/modules/bundles/`, the packages' declarations copied under `<outDir>/modules/types-<hash>/`,
 * and `modules/modules.json` (what the runtime resolves and the type checker reads) written last and
 * atomically. Everything is made before anything is written, so a failed build leaves the previous
 * output as it was. Bundles are named by package, version and a hash of what made them: a build reuses
 * each whose package (and the packages bundled with it) is unchanged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../../config/index.js';
import {
  BUILD_LAYOUT,
  CompileError,
  parseSandboxModules,
  writeFileAtomic,
  type SandboxModuleEntry,
  type SandboxModulesManifest,
} from '../../core/index.js';
import { bundleModule } from './bundle-module.js';
import { copyDeclarations } from './copy-types.js';
import { checkModuleList, findPackage, packageFingerprint, packageNameOf, requirePackage, type InstalledPackage } from './packages.js';

/** Bumped when bundles or declarations change shape, so no older bundle is reused. */
const SANDBOX_MODULES_FORMAT = '1';
/** Default cap of one bundle (`sandbox.maxModuleBytes`). */
export const DEFAULT_MAX_MODULE_BYTES = 2 * 1024 * 1024;

export interface SandboxModulesReport {
  /** The specifiers programs may import, sorted. */
  modules: string[];
  /** Specifiers bundled by this build (the rest were reused). */
  bundled: string[];
  /** Bundle size per specifier, in bytes. */
  bytes: Record<string, number>;
  /** Packages whose declarations programs are checked against. */
  typed: string[];
}

/** Bundles `config.sandbox.modules` into `config.outDir`; throws a `CompileError` naming what is wrong. */
export async function buildSandboxModules(config: ResolvedConfig, options: { force?: boolean } = {}): Promise<SandboxModulesReport> {
  const list = config.sandbox.modules ?? [];
  checkModuleList(list);
  const modulesDir = path.join(config.outDir, BUILD_LAYOUT.sandboxModulesDir);
  if (list.length === 0) {
    await rm(modulesDir, { recursive: true, force: true });
    return { modules: [], bundled: [], bytes: {}, typed: [] };
  }
  const previous = options.force === true ? undefined : await readSandboxModules(config.outDir);
  const maxBytes = config.sandbox.maxModuleBytes ?? DEFAULT_MAX_MODULE_BYTES;
  const installed = new Map<string, InstalledPackage>();
  const inputs: Record<string, string> = {};
  for (const specifier of list) {
    const pkg = await requirePackage(specifier, config.root);
    installed.set(pkg.name, pkg);
    inputs[pkg.name] = await packageFingerprint(pkg, config.root);
  }

  const modules: Record<string, SandboxModuleEntry> = {};
  const newFiles: { file: string; code: string }[] = [];
  const bundled: string[] = [];
  for (const specifier of [...list].sort()) {
    const pkg = installed.get(packageNameOf(specifier)) as InstalledPackage;
    const file = bundleFileName(specifier, pkg, inputs[pkg.name] ?? '');
    const reusable = await reusableEntry(previous, specifier, file, config.root, modulesDir);
    if (reusable !== undefined) {
      modules[specifier] = reusable.entry;
      Object.assign(inputs, reusable.inputs);
      continue;
    }
    const bundle = await bundleModule(specifier, config.root);
    const bytes = Buffer.byteLength(bundle.code);
    if (bytes > maxBytes) {
      throw new CompileError(
        'SANDBOX_MODULE_TOO_LARGE',
        `sandbox module "${specifier}" bundles to ${formatBytes(bytes)}, over sandbox.maxModuleBytes (${formatBytes(maxBytes)}): import a smaller subpath (e.g. "${pkg.name}/<part>") or raise the limit`,
        { details: { module: specifier, bytes, maxBytes } },
      );
    }
    const included = bundle.packages.filter((name) => name !== pkg.name);
    for (const name of included) {
      const dependency = await findPackage(name, pkg.dir);
      if (dependency !== undefined) inputs[name] = await packageFingerprint(dependency, config.root);
    }
    modules[specifier] = { package: pkg.name, version: pkg.version, file, bytes, ...(included.length > 0 ? { includes: included } : {}) };
    newFiles.push({ file, code: bundle.code });
    bundled.push(specifier);
  }

  const { typesDir, typed } = await prepareTypes(modulesDir, [...installed.values()], inputs, previous);
  for (const { file, code } of newFiles) await writeFileAtomic(path.join(modulesDir, file), code);
  const manifest: SandboxModulesManifest = { version: 1, modules, typesDir, inputs: sortedRecord(inputs) };
  await writeFileAtomic(path.join(config.outDir, BUILD_LAYOUT.sandboxModulesFile), `${JSON.stringify(manifest, null, 2)}\n`);
  await removeUnused(modulesDir, manifest);
  return {
    modules: Object.keys(modules),
    bundled,
    bytes: Object.fromEntries(Object.entries(modules).map(([name, entry]) => [name, entry.bytes])),
    typed,
  };
}

/** The sandbox modules the build in `outDir` holds, or undefined when it has none (or they are unreadable). */
export async function readSandboxModules(outDir: string): Promise<SandboxModulesManifest | undefined> {
  try {
    return parseSandboxModules(JSON.parse(await readFile(path.join(outDir, BUILD_LAYOUT.sandboxModulesFile), 'utf8')));
  } catch {
    return undefined;
  }
}

/**
 * Whether the sandbox modules of the build in `config.outDir` differ from what `config` asks for now:
 * another list, or a package (or one bundled with it) installed at another version or lockfile entry.
 */
export async function sandboxModulesStale(config: ResolvedConfig): Promise<boolean> {
  const list = [...(config.sandbox.modules ?? [])].sort();
  const built = await readSandboxModules(config.outDir);
  const builtList = Object.keys(built?.modules ?? {}).sort();
  if (list.length !== builtList.length || list.some((specifier, index) => specifier !== builtList[index])) return true;
  if (built === undefined) return false;
  for (const [name, fingerprint] of Object.entries(built.inputs)) {
    const pkg = await findPackage(name, config.root);
    if (pkg === undefined || (await packageFingerprint(pkg, config.root)) !== fingerprint) return true;
  }
  return false;
}

function bundleFileName(specifier: string, pkg: InstalledPackage, fingerprint: string): string {
  const hash = createHash('sha256').update(`${SANDBOX_MODULES_FORMAT}\0${specifier}\0${fingerprint}`).digest('hex').slice(0, 12);
  const subpath = specifier.slice(pkg.name.length).replace(/^\//, '') || 'index';
  return `bundles/${safeName(pkg.name)}@${safeName(pkg.version)}/${safeName(subpath)}.${hash}.js`;
}

/** The previous build's entry for `specifier` when its bundle is the one this build would make and still exists. */
async function reusableEntry(
  previous: SandboxModulesManifest | undefined,
  specifier: string,
  file: string,
  root: string,
  modulesDir: string,
): Promise<{ entry: SandboxModuleEntry; inputs: Record<string, string> } | undefined> {
  const entry = previous?.modules[specifier];
  if (previous === undefined || entry === undefined || entry.file !== file) return undefined;
  const exists = await stat(path.join(modulesDir, file)).then(
    (found) => found.isFile() && found.size === entry.bytes,
    () => false,
  );
  if (!exists) return undefined;
  const inputs: Record<string, string> = {};
  for (const name of entry.includes ?? []) {
    const pkg = await findPackage(name, root);
    const fingerprint = pkg === undefined ? undefined : await packageFingerprint(pkg, root);
    if (fingerprint === undefined || fingerprint !== previous.inputs[name]) return undefined;
    inputs[name] = fingerprint;
  }
  return { entry, inputs };
}

/** The declarations folder for these packages: reused when the previous build made the same one, else copied anew (then renamed into place). */
async function prepareTypes(
  modulesDir: string,
  packages: readonly InstalledPackage[],
  inputs: Record<string, string>,
  previous: SandboxModulesManifest | undefined,
): Promise<{ typesDir: string; typed: string[] }> {
  const key = packages.map((pkg) => `${pkg.name}@${inputs[pkg.name] ?? pkg.version}`).sort();
  const typesDir = `types-${createHash('sha256')
    .update(`${SANDBOX_MODULES_FORMAT}\0${key.join('\0')}`)
    .digest('hex')
    .slice(0, 12)}`;
  const target = path.join(modulesDir, typesDir);
  if (previous?.typesDir === typesDir && (await stat(target).catch(() => undefined))?.isDirectory() === true) {
    return { typesDir, typed: await listPackages(path.join(target, 'node_modules')) };
  }
  const temporary = path.join(modulesDir, `.${typesDir}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const typed = await copyDeclarations(packages, temporary);
    await rm(target, { recursive: true, force: true });
    await rename(temporary, target);
    return { typesDir, typed };
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
}

/** Removes bundles and declaration folders the manifest no longer names. */
async function removeUnused(modulesDir: string, manifest: SandboxModulesManifest): Promise<void> {
  const keep = new Set(Object.values(manifest.modules).map((entry) => path.join(modulesDir, entry.file)));
  for (const entry of await readdir(modulesDir, { withFileTypes: true })) {
    if (entry.isDirectory() && /^\.?types-/.test(entry.name) && entry.name !== manifest.typesDir) {
      await rm(path.join(modulesDir, entry.name), { recursive: true, force: true });
    }
  }
  const bundles = path.join(modulesDir, 'bundles');
  for (const folder of await readdir(bundles, { withFileTypes: true }).catch(() => [])) {
    if (!folder.isDirectory()) continue;
    const dir = path.join(bundles, folder.name);
    for (const file of await readdir(dir)) if (!keep.has(path.join(dir, file))) await rm(path.join(dir, file), { force: true });
    await rmdir(dir).catch(() => undefined);
  }
}

/** The packages in a `node_modules` folder (`zod`, `@types/lodash`), sorted. */
async function listPackages(dir: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (!entry.startsWith('@')) names.push(entry);
    else for (const scoped of await readdir(path.join(dir, entry)).catch(() => [] as string[])) names.push(`${entry}/${scoped}`);
  }
  return names.sort();
}

function safeName(text: string): string {
  return text.replace(/^@/, '').replace(/[^A-Za-z0-9._-]+/g, '+');
}

function sortedRecord(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(2)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
}
