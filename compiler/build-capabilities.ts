import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../config/index.js';
import { applyCallers } from './apply-callers.js';
import {
  BUILD_LAYOUT,
  assignFunctionNames,
  toModuleName,
  toNamespaceName,
  type CapabilityManifest,
  type CapabilitySource,
  type CapabilitySpec,
  type CompileWarning,
  type RawCapability,
  type SourceFailure,
} from '../core/index.js';
import { buildCatalog } from './catalog.js';
import { createSchemaChecker, type CheckedSchemas } from './check-schemas.js';
import { emitAggregateModule, emitAmbientDeclarations } from './emit-ambient.js';
import { emitProxy } from './emit-proxy.js';
import { applyInferredResults } from './inferred-results.js';
import { buildInputs } from './is-build-stale.js';
import { emitDeclarations } from './declarations/emit-declarations.js';
import { describeWith, discoverSources, type BuildProgressEvent, type Discovered } from './discover-sources.js';
import { readPreviousBuild, writeBuildOutput, type OutputFile } from './write-output.js';
import { buildSandboxModules, type SandboxModulesReport } from './sandbox-modules/index.js';

/** Bumped whenever the emitted files change shape, so a new compiler never reuses stale output. */
export const COMPILER_VERSION = '3';

/** The name of the aggregate module that re-exports the standard library namespaces. */
export const STD_MODULE = 'std';

export type { BuildProgressEvent } from './discover-sources.js';

export interface BuildOptions {
  config: ResolvedConfig;
  /**
   * The kinds of capability sources to compile; each discovers its own units from the config. The
   * package's `buildCapabilities` (`space/`) defaults them to `defaultSources(config)` (tool files, MCP
   * servers, OpenAPI services, the standard library; agents add theirs), building JSON tools without an
   * implementation too (the caller may bring backends for any module); the compiler's requires them.
   */
  sources?: readonly CapabilitySource<ResolvedConfig>[];
  onProgress?: (event: BuildProgressEvent) => void;
  /** Re-emit every module even when its hash is unchanged. */
  force?: boolean;
  /** Given to the sources' discovery (e.g. to stop connecting to slow servers). */
  signal?: AbortSignal;
}

export interface SourceReport {
  source: string;
  status: 'built' | 'unchanged' | 'failed' | 'kept-previous';
  modules: string[];
  functions: number;
  message?: string;
}

export interface BuildResult {
  outDir: string;
  manifest: CapabilityManifest;
  sources: SourceReport[];
  warnings: CompileWarning[];
  /** Sources that failed; their previous output (if any) was kept. */
  errors: SourceFailure[];
  functionCount: number;
  /** Files written (changed), relative to outDir. */
  written: string[];
  /** Files removed (modules that no longer exist), relative to outDir. */
  removed: string[];
  /** The npm packages bundled for programs to import (`sandbox.modules`). */
  sandboxModules: SandboxModulesReport;
  durationMs: number;
}

/** A failed source whose previous modules were kept (see `StoredManifest.kept`). */
export interface KeptSource {
  source: string;
  modules: string[];
  /** Why it failed this time. */
  message: string;
}

/** What `manifest.json` holds: the manifest plus a content hash per module. */
export interface StoredManifest extends CapabilityManifest {
  compilerVersion: string;
  hashes: Record<string, string>;
  /** Schemas this compiler version found compilable (see {@link CheckedSchemas}). */
  checkedSchemas?: CheckedSchemas;
  /**
   * Sources that failed in this build whose modules an earlier build made are kept: programs still run
   * those modules, which are stale until the source builds again (`agent-spaces run` warns of them).
   */
  kept?: KeptSource[];
}

/**
 * Compiles every capability source of a space into `outDir`: declarations, proxies, schemas,
 * catalog. Sources are loaded in parallel; a source that fails is reported and its previous output
 * kept; unchanged modules are not re-emitted; only changed files are written (each atomically), the
 * manifest last.
 */
export async function buildCapabilities(options: BuildOptions & Required<Pick<BuildOptions, 'sources'>>): Promise<BuildResult> {
  const started = performance.now();
  const { config } = options;
  const progress = options.onProgress ?? (() => undefined);
  const previous = await readPreviousBuild(config.outDir);
  // First, so a module the sandbox cannot run fails the build before any of it is written.
  const sandboxModules = await buildSandboxModules(config, { force: options.force === true });
  // Every schema is compiled with the bridge's ajv setup: one that cannot validate fails its source here.
  const checker = createSchemaChecker(previous?.compilerVersion === COMPILER_VERSION ? previous.checkedSchemas : {});
  const { sources } = options;
  const loaded = await discoverSources(sources, config, checker, progress, options.signal);
  const describeSource = describeWith(sources);
  const warnings: CompileWarning[] = [...loaded.warnings];

  // Result types learned from observed results (`<outDir>/inferred/`) join the specs, so their hash covers them.
  const specs = await applyInferredResults(applyCallers(assignNames(loaded.raws, warnings, describeSource), config, sources), config);
  // Keep the previous modules of sources that failed this time.
  const failedSources = new Set(loaded.failures.map((failure) => failure.source));
  const kept = (previous?.capabilities ?? []).filter((spec) => failedSources.has(describeSource(spec.source)));
  const taken = new Set(specs.map((spec) => spec.module));
  for (const spec of kept) if (!taken.has(spec.module)) specs.push(spec);
  specs.sort((a, b) => a.module.localeCompare(b.module));

  const files: OutputFile[] = [];
  const hashes: Record<string, string> = {};
  const dtsByModule: { module: string; dts: string }[] = [];
  const reused = new Set<string>();
  for (const spec of specs) {
    const hash = hashSpec(spec);
    hashes[spec.module] = hash;
    const dir = `${BUILD_LAYOUT.capabilitiesDir}/${spec.module}`;
    let dts: string;
    let proxy: string;
    const reusable = !options.force && previous?.hashes[spec.module] === hash ? await readModule(config.outDir, dir) : undefined;
    if (reusable) {
      ({ dts, proxy } = reusable);
      reused.add(spec.module);
      warnings.push(...(previous?.warnings ?? []).filter((w) => w.capability === spec.module));
    } else {
      const emitted = emitDeclarations(spec);
      dts = emitted.dts;
      warnings.push(...emitted.warnings);
      proxy = emitProxy(spec);
    }
    dtsByModule.push({ module: spec.module, dts });
    files.push(
      { path: `${dir}/${BUILD_LAYOUT.moduleFiles.declarations}`, content: dts },
      { path: `${dir}/${BUILD_LAYOUT.moduleFiles.proxy}`, content: proxy },
      { path: `${dir}/${BUILD_LAYOUT.moduleFiles.schema}`, content: json(spec) },
      {
        path: `${dir}/${BUILD_LAYOUT.moduleFiles.capability}`,
        content: json({ module: spec.module, namespace: spec.namespace, source: spec.source, version: spec.version ?? null, hash }),
      },
    );
  }

  const stdMembers = specs.filter((spec) => spec.source.kind === 'std');
  if (stdMembers.length > 0 && !taken.has(STD_MODULE)) {
    const aggregate = emitAggregateModule(
      STD_MODULE,
      stdMembers.map((spec) => ({ module: spec.module, namespace: spec.namespace })),
    );
    const dir = `${BUILD_LAYOUT.capabilitiesDir}/${STD_MODULE}`;
    files.push(
      { path: `${dir}/${BUILD_LAYOUT.moduleFiles.declarations}`, content: aggregate.dts },
      { path: `${dir}/${BUILD_LAYOUT.moduleFiles.proxy}`, content: aggregate.proxy },
    );
    dtsByModule.push({ module: STD_MODULE, dts: aggregate.dts });
  }

  for (const failure of loaded.failures) warnings.push({ source: failure.source, message: failure.message });
  warnings.sort(compareWarnings);
  const keptSources = loaded.failures.flatMap((failure) => {
    const modules = kept
      .filter((spec) => describeSource(spec.source) === failure.source && !taken.has(spec.module))
      .map((spec) => spec.module);
    return modules.length > 0 ? [{ source: failure.source, modules, message: failure.message }] : [];
  });
  const manifest: StoredManifest = {
    version: 1,
    compilerVersion: COMPILER_VERSION,
    capabilities: specs,
    warnings: dedupe(warnings),
    hashes,
    checkedSchemas: checker.checked(),
    ...(keptSources.length > 0 ? { kept: keptSources } : {}),
  };
  files.push({ path: BUILD_LAYOUT.declarationsFile, content: emitAmbientDeclarations(dtsByModule) });
  files.push({ path: BUILD_LAYOUT.catalogFile, content: json(buildCatalog(specs)) });
  files.push({ path: BUILD_LAYOUT.inputsFile, content: json(await buildInputs(config, sources)) });
  files.push({ path: BUILD_LAYOUT.manifestFile, content: json(manifest) });

  const { written, removed } = await writeBuildOutput(config.outDir, files);
  return {
    outDir: config.outDir,
    manifest: { version: 1, capabilities: specs, warnings: manifest.warnings },
    sources: reportSources(loaded, specs, kept, reused, describeSource),
    warnings: manifest.warnings,
    errors: loaded.failures,
    functionCount: specs.reduce((sum, spec) => sum + spec.functions.length, 0),
    written,
    removed,
    sandboxModules,
    durationMs: performance.now() - started,
  };
}

function assignNames(
  raws: RawCapability[],
  warnings: CompileWarning[],
  describeSource: (source: CapabilitySpec['source']) => string,
): CapabilitySpec[] {
  const ordered = [...raws].sort((a, b) => {
    const moduleA = a.module ?? toModuleName(a.name);
    const moduleB = b.module ?? toModuleName(b.name);
    return moduleA.localeCompare(moduleB) || describeSource(a.source).localeCompare(describeSource(b.source));
  });
  const used = new Set<string>();
  const specs: CapabilitySpec[] = [];
  for (const raw of ordered) {
    const base = raw.module ?? toModuleName(raw.name);
    let module = base;
    for (let n = 2; used.has(module) || (module === STD_MODULE && raw.source.kind !== 'std'); n++) module = `${base}-${n}`;
    if (module !== base) {
      warnings.push({
        source: describeSource(raw.source),
        capability: module,
        message: `module name "${base}" is taken; this capability is @capabilities/${module}`,
      });
    }
    if (raw.module === undefined && /[^\p{ASCII}]/u.test(raw.name)) {
      warnings.push({
        source: describeSource(raw.source),
        capability: module,
        message: `capability "${raw.name}" is @capabilities/${module}: module names are ASCII (a-z, 0-9, -)`,
      });
    }
    used.add(module);
    const { names, warnings: nameWarnings } = assignFunctionNames(raw.functions.map((fn) => fn.toolName));
    for (const warning of nameWarnings) {
      warnings.push({ source: describeSource(raw.source), capability: module, function: warning.name, message: warning.message });
    }
    specs.push({
      module,
      namespace: toNamespaceName(raw.name),
      ...(raw.description !== undefined ? { description: raw.description } : {}),
      ...(raw.version !== undefined ? { version: raw.version } : {}),
      source: raw.source,
      config: raw.config,
      functions: raw.functions
        .map((fn) => ({ name: names.get(fn.toolName) ?? fn.toolName, ...fn }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    });
  }
  return specs;
}

function reportSources(
  loaded: Discovered,
  specs: CapabilitySpec[],
  kept: CapabilitySpec[],
  reused: Set<string>,
  describeSource: (source: CapabilitySpec['source']) => string,
): SourceReport[] {
  const reports = new Map<string, SourceReport>();
  for (const spec of specs) {
    const source = describeSource(spec.source);
    const report = reports.get(source) ?? { source, status: 'unchanged', modules: [], functions: 0 };
    report.modules.push(spec.module);
    report.functions += spec.functions.length;
    if (!reused.has(spec.module)) report.status = 'built';
    reports.set(source, report);
  }
  for (const failure of loaded.failures) {
    const keptModules = kept.filter((spec) => describeSource(spec.source) === failure.source);
    reports.set(failure.source, {
      source: failure.source,
      status: keptModules.length > 0 ? 'kept-previous' : 'failed',
      modules: keptModules.map((spec) => spec.module),
      functions: keptModules.reduce((sum, spec) => sum + spec.functions.length, 0),
      message: failure.message,
    });
  }
  return [...reports.values()].sort((a, b) => a.source.localeCompare(b.source));
}

async function readModule(outDir: string, dir: string): Promise<{ dts: string; proxy: string } | undefined> {
  try {
    const [dts, proxy] = await Promise.all([
      readFile(path.join(outDir, dir, BUILD_LAYOUT.moduleFiles.declarations), 'utf8'),
      readFile(path.join(outDir, dir, BUILD_LAYOUT.moduleFiles.proxy), 'utf8'),
    ]);
    return { dts, proxy };
  } catch {
    return undefined;
  }
}

export function hashSpec(spec: CapabilitySpec): string {
  return createHash('sha256').update(COMPILER_VERSION).update(JSON.stringify(spec)).digest('hex').slice(0, 16);
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function compareWarnings(a: CompileWarning, b: CompileWarning): number {
  return (
    a.source.localeCompare(b.source) ||
    (a.capability ?? '').localeCompare(b.capability ?? '') ||
    (a.function ?? '').localeCompare(b.function ?? '') ||
    (a.pointer ?? '').localeCompare(b.pointer ?? '') ||
    a.message.localeCompare(b.message)
  );
}

function dedupe(warnings: CompileWarning[]): CompileWarning[] {
  const seen = new Set<string>();
  return warnings.filter((warning) => {
    const key = JSON.stringify(warning);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
