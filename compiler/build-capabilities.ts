import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../config/index.js';
import {
  BUILD_LAYOUT,
  CompileError,
  errorMessage,
  type CapabilityManifest,
  type CapabilitySource,
  type CapabilitySpec,
  type CompileWarning,
  type ToolDefinition,
} from '../core/index.js';
import { buildCatalog } from './catalog.js';
import { createSchemaChecker, type CheckedSchemas, type SchemaChecker } from './check-schemas.js';
import { emitAggregateModule, emitAmbientDeclarations } from './emit-ambient.js';
import { emitProxy } from './emit-proxy.js';
import { emitDeclarations } from './declarations/emit-declarations.js';
import { expandGlobs, isGlob } from './expand-globs.js';
import { assignFunctionNames, toModuleName, toNamespaceName } from './names.js';
import { describeSource, type RawCapability, type SourceFailure } from './raw-capability.js';
import { loadJsonToolFile } from './sources/json-file.js';
import { discoverMcpServer, type McpConnector } from './sources/mcp-server.js';
import { toolDefinitionToRaw } from './sources/tool-definition.js';
import { loadTypeScriptToolFile } from './sources/typescript-file.js';
import { readPreviousBuild, writeBuildOutput, type OutputFile } from './write-output.js';

/** Bumped whenever the emitted files change shape, so a new compiler never reuses stale output. */
export const COMPILER_VERSION = '2';

/** The name of the aggregate module that re-exports the standard library namespaces. */
export const STD_MODULE = 'std';

export interface ExtraTool {
  definition: ToolDefinition;
  module: string;
  source: CapabilitySource;
}

export type BuildProgressEvent =
  | { type: 'source-start'; source: string }
  | { type: 'source-end'; source: string; status: 'loaded' | 'failed'; functions: number; durationMs: number; message?: string };

export interface BuildOptions {
  config: ResolvedConfig;
  /** Tool definitions compiled with the configured sources (the standard library). */
  extraTools?: ExtraTool[];
  onProgress?: (event: BuildProgressEvent) => void;
  /** Re-emit every module even when its hash is unchanged. */
  force?: boolean;
  /** How to reach MCP servers (default: `connectMcpServer`); tests pass in-memory servers here. */
  connectMcp?: McpConnector;
  /** Sources the caller failed to load (e.g. agent directories), reported like failed files. */
  sourceFailures?: SourceFailure[];
  /**
   * Fail a JSON tool without an `implementation` (nothing could perform its calls), unless its module is
   * one of `except`: the caller registers a backend for it (`createSpace({ backends })`). Absent: such
   * tools are built (a caller of the compiler alone may bring backends for any module).
   */
  requireImplementations?: { except?: readonly string[] };
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
  durationMs: number;
  /** `defineTool` definitions by module, for the host's in-process backend. */
  definitions: Map<string, ToolDefinition>;
}

/** What `manifest.json` holds: the manifest plus a content hash per module. */
export interface StoredManifest extends CapabilityManifest {
  compilerVersion: string;
  hashes: Record<string, string>;
  /** Schemas this compiler version found compilable (see {@link CheckedSchemas}). */
  checkedSchemas?: CheckedSchemas;
}

interface Loaded {
  raws: RawCapability[];
  definitions: Map<RawCapability, ToolDefinition>;
  failures: SourceFailure[];
  /** What the sources' schemas ask for that is not checked (unknown formats). */
  warnings: CompileWarning[];
}

/**
 * Compiles every capability source of a space into `outDir`: declarations, proxies, schemas,
 * catalog. Sources are loaded in parallel; a source that fails is reported and its previous output
 * kept; unchanged modules are not re-emitted; only changed files are written (each atomically), the
 * manifest last.
 */
export async function buildCapabilities(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const { config } = options;
  const progress = options.onProgress ?? (() => undefined);
  const previous = await readPreviousBuild(config.outDir);
  // Every schema is compiled with the bridge's ajv setup: one that cannot validate fails its source here.
  const checker = createSchemaChecker(previous?.compilerVersion === COMPILER_VERSION ? previous.checkedSchemas : {});
  const loaded = await loadSources(config, options.extraTools ?? [], progress, options.connectMcp, checker, options.requireImplementations);
  loaded.failures.push(...(options.sourceFailures ?? []));
  const warnings: CompileWarning[] = [...loaded.warnings];

  const specs = assignNames(loaded.raws, warnings);
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
    const aggregate = emitAggregateModule(STD_MODULE, stdMembers.map((spec) => ({ module: spec.module, namespace: spec.namespace })));
    const dir = `${BUILD_LAYOUT.capabilitiesDir}/${STD_MODULE}`;
    files.push({ path: `${dir}/${BUILD_LAYOUT.moduleFiles.declarations}`, content: aggregate.dts }, { path: `${dir}/${BUILD_LAYOUT.moduleFiles.proxy}`, content: aggregate.proxy });
    dtsByModule.push({ module: STD_MODULE, dts: aggregate.dts });
  }

  for (const failure of loaded.failures) warnings.push({ source: failure.source, message: failure.message });
  warnings.sort(compareWarnings);
  const manifest: StoredManifest = { version: 1, compilerVersion: COMPILER_VERSION, capabilities: specs, warnings: dedupe(warnings), hashes, checkedSchemas: checker.checked() };
  files.push({ path: BUILD_LAYOUT.declarationsFile, content: emitAmbientDeclarations(dtsByModule) });
  files.push({ path: BUILD_LAYOUT.catalogFile, content: json(buildCatalog(specs)) });
  files.push({ path: BUILD_LAYOUT.manifestFile, content: json(manifest) });

  const { written, removed } = await writeBuildOutput(config.outDir, files);
  const definitions = new Map<string, ToolDefinition>();
  for (const raw of loaded.raws) {
    const definition = loaded.definitions.get(raw);
    const spec = specs.find((s) => s.source === raw.source && s.namespace === toNamespaceName(raw.name));
    if (definition && spec) definitions.set(spec.module, definition);
  }
  return {
    outDir: config.outDir,
    manifest: { version: 1, capabilities: specs, warnings: manifest.warnings },
    sources: reportSources(loaded, specs, kept, reused),
    warnings: manifest.warnings,
    errors: loaded.failures,
    functionCount: specs.reduce((sum, spec) => sum + spec.functions.length, 0),
    written,
    removed,
    durationMs: performance.now() - started,
    definitions,
  };
}

async function loadSources(
  config: ResolvedConfig,
  extraTools: ExtraTool[],
  progress: (event: BuildProgressEvent) => void,
  connect: McpConnector | undefined,
  checker: SchemaChecker,
  requireImplementations: BuildOptions['requireImplementations'],
): Promise<Loaded> {
  const loaded: Loaded = { raws: [], definitions: new Map(), failures: [], warnings: [] };
  const { files, missing, folders } = await expandGlobs(config.capabilities, config.root);
  for (const pattern of missing) loaded.failures.push({ source: pattern, message: `capability file not found: ${pattern} (relative to ${config.root})` });
  for (const folder of folders) {
    const glob = folder.replace(/\/+$/, '');
    loaded.failures.push({ source: folder, message: `capability entry "${folder}" is a folder: name its files with a glob, such as "${glob}/*.json" or "${glob}/*.ts"` });
  }
  // A glob may match other files (a README); a file named on its own must be a capability.
  const named = new Set(config.capabilities.filter((pattern) => !isGlob(pattern)).map((pattern) => path.resolve(config.root, pattern)));

  const tasks: { source: string; load: () => Promise<{ raws: RawCapability[]; definitions?: ToolDefinition[] }> }[] = [];
  for (const file of files) {
    const source = path.relative(config.root, file) || file;
    if (file.endsWith('.json')) {
      tasks.push({
        source,
        load: async () => {
          const raws = (await loadJsonToolFile(file, { name: source })).map((raw) => withPath(raw, source));
          if (requireImplementations) checkImplementations(raws, source, new Set(requireImplementations.except ?? []));
          return { raws };
        },
      });
    }
    else if (/\.(m?ts|m?js)$/.test(file) && !file.endsWith('.d.ts') && !/\.test\.[mc]?[jt]s$/.test(file)) {
      tasks.push({
        source,
        load: async () => {
          const result = await loadTypeScriptToolFile(file, { name: source });
          return { raws: result.capabilities.map((raw) => withPath(raw, source)), definitions: result.definitions };
        },
      });
    } else if (named.has(file)) {
      loaded.failures.push({ source, message: `${source} is not a capability file: use JSON tool files (.json) or defineTool modules (.ts, .mts, .js, .mjs)` });
    }
  }
  for (const [server, serverConfig] of Object.entries(config.mcpServers).sort(([a], [b]) => a.localeCompare(b))) {
    tasks.push({ source: `mcp:${server}`, load: async () => ({ raws: [await discoverMcpServer(server, serverConfig, connect ? { connect } : {})] }) });
  }

  const results = await Promise.all(
    tasks.map(async (task) => {
      const started = performance.now();
      progress({ type: 'source-start', source: task.source });
      try {
        const result = await task.load();
        const warnings = checker.check(result.raws);
        const functions = result.raws.reduce((sum, raw) => sum + raw.functions.length, 0);
        progress({ type: 'source-end', source: task.source, status: 'loaded', functions, durationMs: performance.now() - started });
        return { task, result, warnings };
      } catch (error) {
        const message = errorMessage(error);
        progress({ type: 'source-end', source: task.source, status: 'failed', functions: 0, durationMs: performance.now() - started, message });
        return { task, error: message };
      }
    }),
  );
  for (const entry of results) {
    if ('error' in entry) {
      loaded.failures.push({ source: entry.task.source, message: entry.error ?? 'failed' });
      continue;
    }
    loaded.warnings.push(...entry.warnings);
    entry.result.raws.forEach((raw, index) => {
      loaded.raws.push(raw);
      const definition = entry.result.definitions?.[index];
      if (definition) loaded.definitions.set(raw, definition);
    });
  }
  for (const extra of extraTools) loadExtraTool(extra, loaded, checker);
  return loaded;
}

/**
 * A JSON tool describes functions but performs none: without an `implementation` (or a backend the
 * caller brings), every call would fail at run time. Fail the file now, saying what to write.
 */
function checkImplementations(raws: RawCapability[], file: string, served: ReadonlySet<string>): void {
  const missing = raws.filter((raw) => raw.source.kind === 'json' && raw.source.implementation === undefined && !served.has(raw.module ?? toModuleName(raw.name)));
  if (missing.length === 0) return;
  const suggested = `./impl/${path.basename(file, '.json')}.ts`;
  const problems = missing.map((raw) => {
    const exports = raw.functions.map((fn) => (/^[A-Za-z_$][\w$]*$/.test(fn.toolName) ? `export async function ${fn.toolName}(params) { … }` : `export { handler as "${fn.toolName}" }`)).join('; ');
    return `tool "${raw.name}" has no "implementation", so nothing can perform its calls: add "implementation": "${suggested}" next to its "name" (a path relative to ${file}), a module that exports one function per tool name (${exports})`;
  });
  throw new CompileError('MISSING_IMPLEMENTATION', `${file}: ${problems.join(`\n${file}: `)}`);
}

/** A definition handed in by the caller (std, agents): checked like a source, and reported like one when it fails. */
function loadExtraTool(extra: ExtraTool, loaded: Loaded, checker: SchemaChecker): void {
  try {
    const raw = toolDefinitionToRaw(extra.definition, extra.source, extra.module);
    loaded.warnings.push(...checker.check([raw]));
    loaded.raws.push(raw);
    loaded.definitions.set(raw, extra.definition);
  } catch (error) {
    loaded.failures.push({ source: describeSource(extra.source), message: errorMessage(error) });
  }
}

/** Paths in specs are relative to the config root, so the output does not depend on where the space lives. */
function withPath(raw: RawCapability, relative: string): RawCapability {
  if (raw.source.kind === 'json' || raw.source.kind === 'typescript') return { ...raw, source: { ...raw.source, path: relative } };
  return raw;
}

function assignNames(raws: RawCapability[], warnings: CompileWarning[]): CapabilitySpec[] {
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
    for (let n = 2; used.has(module) || module === STD_MODULE && raw.source.kind !== 'std'; n++) module = `${base}-${n}`;
    if (module !== base) {
      warnings.push({ source: describeSource(raw.source), capability: module, message: `module name "${base}" is taken; this capability is @capabilities/${module}` });
    }
    if (raw.module === undefined && /[^\p{ASCII}]/u.test(raw.name)) {
      warnings.push({ source: describeSource(raw.source), capability: module, message: `capability "${raw.name}" is @capabilities/${module}: module names are ASCII (a-z, 0-9, -)` });
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

function reportSources(loaded: Loaded, specs: CapabilitySpec[], kept: CapabilitySpec[], reused: Set<string>): SourceReport[] {
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
