import { existsSync } from 'node:fs';
import path from 'node:path';
import { importTypeScript, type ResolvedConfig } from '../../config/index.js';
import {
  CompileError,
  ToolCallError,
  createInProcessBackend,
  defineTool,
  errorMessage,
  isToolDefinition,
  sourceLabel,
  toModuleName,
  untilAborted,
  type AnyFunctionDefinition,
  type Backend,
  type BackendCall,
  type CapabilitySpec,
  type RawCapability,
  type SourceFailure,
  type ToolDefinition,
} from '../../core/index.js';
import type { CapabilitySource, DiscoverContext, Discovery } from '../capability-source.js';
import { expandGlobs, isGlob } from './expand-globs.js';
import { loadJsonToolFile } from './json-file.js';
import { loadTypeScriptToolFile } from './typescript-file.js';

declare module '../../core/manifest.js' {
  interface CapabilityOrigins {
    /** A JSON tool file; `implementation`: a module (relative to it) exporting one function per tool name. */
    json: { path: string; implementation?: string };
    /** A `defineTool()` export of a TypeScript module. */
    typescript: { path: string; exportName: string };
  }
}

export interface FilesSourceOptions {
  /**
   * Fail a JSON tool without an `implementation` (nothing could perform its calls) when its module is
   * not one of `handlers` (default `true`). `false` builds such tools anyway; their calls then fail.
   */
  requireImplementations?: boolean;
  /**
   * Handlers the caller brings for JSON tools without an `implementation`, by module name
   * (`{ 'plain-tool': defineTool({ name: 'plain_tool', functions: { plain_tool: { handler } } }) }`).
   */
  handlers?: Record<string, ToolDefinition>;
}

type ImportedModule = Record<string, unknown>;

/**
 * The config's `capabilities` files as a capability source: JSON tool files (seed or OpenAI format)
 * and TypeScript `defineTool` modules. Every file is imported once: the build reads its tools and the
 * host's in-process backend performs them from the same module (a new build imports changed files again).
 */
export function createFilesSource(options: FilesSourceOptions = {}): CapabilitySource {
  // The modules of the latest build, by file: a space connected to that build keeps this map, so a
  // later build (a new map) never hands it another build's modules.
  let imports = new Map<string, Promise<ImportedModule>>();
  const importingInto =
    (modules: Map<string, Promise<ImportedModule>>) =>
    (file: string): Promise<ImportedModule> => {
      let pending = modules.get(file);
      if (pending === undefined) {
        pending = importTypeScript(file) as Promise<ImportedModule>;
        modules.set(file, pending);
      }
      return pending;
    };
  const handlers = options.handlers ?? {};
  const requireImplementations = options.requireImplementations ?? true;

  return {
    kind: ['json', 'typescript'],
    async discover(context) {
      imports = new Map(); // a build reads the files as they are now
      return discoverFiles(context, {
        importModule: importingInto(imports),
        ...(requireImplementations ? { checkImplementations: new Set(Object.keys(handlers)) } : {}),
      });
    },
    async connect(specs, context) {
      return connectFiles(specs, context.config, importingInto(imports), handlers);
    },
    describe: sourceLabel,
    // Tool files hold code, not credentials: their secrets come from the environment they read.
    secrets: () => [],
    inputFiles: async (config) => (await expandGlobs(config.capabilities, config.root)).files,
  };
}

/**
 * The files source with the defaults (every JSON tool needs an implementation): the instance
 * `defaultSources` holds, so `source === filesSource` finds it among the defaults.
 * @deprecated use `createFilesSource()`, or find the files source among the defaults by its kind.
 */
export const filesSource: CapabilitySource = createFilesSource();

interface DiscoverOptions {
  importModule: (file: string) => Promise<unknown>;
  /** Check JSON tools for an implementation, except those of these modules. */
  checkImplementations?: ReadonlySet<string>;
}

async function discoverFiles(context: DiscoverContext, options: DiscoverOptions): Promise<Discovery> {
  const { config } = context;
  const failures: SourceFailure[] = [];
  const { files, missing, folders } = await expandGlobs(config.capabilities, config.root);
  for (const pattern of missing)
    failures.push({ source: pattern, message: `capability file not found: ${pattern} (relative to ${config.root})` });
  for (const folder of folders) {
    const glob = folder.replace(/\/+$/, '');
    failures.push({
      source: folder,
      message: `capability entry "${folder}" is a folder: name its files with a glob, such as "${glob}/*.json" or "${glob}/*.ts"`,
    });
  }
  // A glob may match other files (a README); a file named on its own must be a capability.
  const named = new Set(config.capabilities.filter((pattern) => !isGlob(pattern)).map((pattern) => path.resolve(config.root, pattern)));

  const units: Promise<RawCapability[] | undefined>[] = [];
  for (const file of files) {
    // Paths in specs are relative to the config root, so the output does not depend on where the space lives.
    const relative = path.relative(config.root, file) || file;
    if (file.endsWith('.json')) {
      units.push(
        context.load(relative, async () => {
          const raws = (await loadJsonToolFile(file, { name: relative })).map((raw) => withPath(raw, relative));
          checkImplementationFiles(raws, relative, config.root);
          if (options.checkImplementations) checkImplementations(raws, relative, options.checkImplementations);
          return raws;
        }),
      );
    } else if (/\.(m?ts|m?js)$/.test(file) && !file.endsWith('.d.ts') && !/\.test\.[mc]?[jt]s$/.test(file)) {
      units.push(
        context.load(relative, async () => {
          const result = await loadTypeScriptToolFile(file, { name: relative, importModule: options.importModule });
          return result.capabilities.map((raw) => withPath(raw, relative));
        }),
      );
    } else if (named.has(file)) {
      failures.push({
        source: relative,
        message: `${relative} is not a capability file: use JSON tool files (.json) or defineTool modules (.ts, .mts, .js, .mjs)`,
      });
    }
  }
  const loaded = await Promise.all(units);
  return { capabilities: loaded.flatMap((raws) => raws ?? []), failures };
}

function withPath(raw: RawCapability, relative: string): RawCapability {
  return 'path' in raw.source ? { ...raw, source: { ...raw.source, path: relative } } : raw;
}

/** Extensions a JSON tool's `implementation` may leave out (the module loader adds them). */
const IMPLEMENTATION_EXTENSIONS = ['', '.ts', '.mts', '.js', '.mjs'];

/**
 * An `implementation` that names no file would build clean and then fail every run of the space (the
 * host side of the capabilities is loaded when the space starts): fail the file now, saying where it looked.
 */
function checkImplementationFiles(raws: RawCapability[], file: string, root: string): void {
  const problems: string[] = [];
  for (const raw of raws) {
    if (raw.source.kind !== 'json' || raw.source.implementation === undefined) continue;
    const target = path.resolve(root, path.dirname(file), raw.source.implementation);
    if (IMPLEMENTATION_EXTENSIONS.some((extension) => existsSync(target + extension))) continue;
    problems.push(
      `tool "${raw.name}": its "implementation" ${JSON.stringify(raw.source.implementation)} names no file (looked for ${target}; the path is relative to ${file})`,
    );
  }
  if (problems.length > 0) throw new CompileError('MISSING_IMPLEMENTATION', `${file}: ${problems.join(`\n${file}: `)}`);
}

/**
 * A JSON tool describes functions but performs none: without an `implementation` (or handlers the
 * caller brings), every call would fail at run time. Fail the file now, saying what to write.
 */
function checkImplementations(raws: RawCapability[], file: string, served: ReadonlySet<string>): void {
  const missing = raws.filter(
    (raw) => raw.source.kind === 'json' && raw.source.implementation === undefined && !served.has(raw.module ?? toModuleName(raw.name)),
  );
  if (missing.length === 0) return;
  const suggested = `./impl/${path.basename(file, '.json')}.ts`;
  const problems = missing.map((raw) => {
    const exports = raw.functions
      .map((fn) =>
        /^[A-Za-z_$][\w$]*$/.test(fn.toolName)
          ? `export async function ${fn.toolName}(params) { … }`
          : `export { handler as "${fn.toolName}" }`,
      )
      .join('; ');
    return `tool "${raw.name}" has no "implementation", so nothing can perform its calls: add "implementation": "${suggested}" next to its "name" (a path relative to ${file}), a module that exports one function per tool name (${exports})`;
  });
  throw new CompileError('MISSING_IMPLEMENTATION', `${file}: ${problems.join(`\n${file}: `)}`);
}

/**
 * The in-process backend of the built tool-file modules. A module is imported on its first call, as an
 * MCP server is started and an SDK imported on theirs: a run loads the tool files its program calls,
 * not every file of the space (a TypeScript file goes through tsx's loader, some 0.2 s of a cold
 * process's start). A module that no longer loads fails its calls, saying why. Modules that may ask
 * for an approval are imported now, as they always were: an approval's message may be a function of
 * the module, computed before the call is performed, so one of those that no longer loads fails the
 * space's start, every such problem listed. A process that built the space imported them all already.
 */
async function connectFiles(
  specs: readonly CapabilitySpec[],
  config: ResolvedConfig,
  importModule: (file: string) => Promise<ImportedModule>,
  handlers: Record<string, ToolDefinition>,
): Promise<Backend> {
  const specOf = new Map(specs.map((spec) => [spec.module, spec]));
  // By module: the import under way, and once it settled, the backend of its definition (undefined: a
  // JSON tool without an implementation). A failed import stays failed for this space, as its imports
  // are kept: a fixed file is read again by the next build.
  const loading = new Map<string, Promise<Backend | undefined>>();
  const loaded = new Map<string, Backend | undefined>();
  const load = (spec: CapabilitySpec): Promise<Backend | undefined> => {
    let pending = loading.get(spec.module);
    if (pending === undefined) {
      pending = definitionOf(spec, config, importModule, handlers).then((definition) => {
        const backend = definition === undefined ? undefined : createInProcessBackend({ [spec.module]: definition });
        loaded.set(spec.module, backend);
        return backend;
      });
      // Observed here: a call that gave up waiting (its run ended) leaves no rejection unhandled.
      pending.catch(() => undefined);
      loading.set(spec.module, pending);
    }
    return pending;
  };
  const problemOf = (spec: CapabilitySpec, error: unknown): string =>
    `@capabilities/${spec.module} (${sourceLabel(spec.source)}): ${errorMessage(error)}`;

  const problems: string[] = [];
  await Promise.all(
    specs.filter(mayAskApproval).map(async (spec) => {
      try {
        await load(spec);
      } catch (error) {
        problems.push(problemOf(spec, error));
      }
    }),
  );
  if (problems.length > 0) {
    problems.sort();
    throw new CompileError(
      'BACKEND_LOAD_FAILED',
      `could not load the host side of some capabilities (rebuild with \`agent-spaces capabilities build\` if files moved):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }

  return {
    async call(call) {
      const { module } = call.capability;
      const names = { capability: module, function: call.function.name };
      let backend = loaded.get(module);
      if (!loaded.has(module)) {
        const spec = specOf.get(module) ?? call.capability;
        const cancelled = (): ToolCallError =>
          new ToolCallError('CANCELLED', `tool "${call.function.toolName}" of capability "${module}" was cancelled: the run ended`, names);
        try {
          backend = await untilAborted(load(spec), call.context.signal, cancelled);
        } catch (error) {
          if (error instanceof ToolCallError) throw error;
          throw new ToolCallError(
            'SERVER_UNAVAILABLE',
            `could not load the host side of ${problemOf(spec, error)}${isMissingFile(error) ? ' (rebuild with `agent-spaces capabilities build` if files moved)' : ''}`,
            names,
            { cause: error },
          );
        }
      }
      if (backend === undefined) throw noImplementationError(call);
      return backend.call(call);
    },
    approvalMessage(call) {
      return loaded.get(call.capability.module)?.approvalMessage?.(call);
    },
    prepare(capability) {
      // A failure is kept for the first call, which reports it.
      if (!loaded.has(capability.module)) void load(specOf.get(capability.module) ?? capability);
    },
    close: async () => undefined,
  };
}

/** A file or module that is not there (moved, deleted): the one load failure a rebuild may answer. */
function isMissingFile(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

/** Whether a call of the module may ask for an approval (the build marks the functions, or the config the whole capability). */
function mayAskApproval(spec: CapabilitySpec): boolean {
  return spec.config.requiresApproval === true || spec.functions.some((fn) => fn.requiresApproval === true);
}

async function definitionOf(
  spec: CapabilitySpec,
  config: ResolvedConfig,
  importModule: (file: string) => Promise<ImportedModule>,
  handlers: Record<string, ToolDefinition>,
): Promise<ToolDefinition | undefined> {
  const source = spec.source;
  if (source.kind === 'typescript') {
    const definition = (await importModule(path.resolve(config.root, source.path)))[source.exportName];
    if (!isToolDefinition(definition)) throw new Error(`export "${source.exportName}" is no longer a defineTool() definition`);
    return definition;
  }
  if (source.kind !== 'json') return undefined;
  const handled = handlers[spec.module];
  if (handled) return handled;
  if (source.implementation === undefined) return undefined; // its calls fail, saying what to add
  const file = path.join(path.dirname(source.path), source.implementation);
  return implementationToDefinition(spec, await importModule(path.resolve(config.root, file)), file);
}

/** A JSON tool's implementation module: one exported function per original tool name. */
function implementationToDefinition(spec: CapabilitySpec, module: ImportedModule, file: string): ToolDefinition {
  const functions: Record<string, AnyFunctionDefinition> = {};
  const missing: string[] = [];
  for (const fn of spec.functions) {
    const handler = module[fn.toolName] ?? module[fn.name];
    if (typeof handler !== 'function') {
      missing.push(fn.toolName);
      continue;
    }
    functions[fn.toolName] = { handler: handler as AnyFunctionDefinition['handler'] };
  }
  if (missing.length > 0) throw new Error(`${file} exports no function for ${missing.map((m) => `"${m}"`).join(', ')}`);
  return defineTool({ name: spec.namespace, functions });
}

/** A call of a JSON tool built without an implementation says what to add, not which API to call. */
function noImplementationError(call: BackendCall): ToolCallError {
  const where = sourceLabel(call.capability.source);
  return new ToolCallError(
    'SERVER_UNAVAILABLE',
    `capability "${call.capability.module}" (${where}) has no "implementation", so nothing performs its calls: add one to ${where} and rebuild`,
    { capability: call.capability.module, function: call.function.name },
  );
}
