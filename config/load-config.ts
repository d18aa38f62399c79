import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import Module, { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { closestKey, ConfigError, errorMessage, keepAliveUntil, type ConfigIssue } from '../core/index.js';
import { resolveAgentEntry } from './agent-entries.js';
import { hasSelections } from './registry-kinds.js';
import type { Registry } from './registry.js';
import { expandEnvDeep } from './expand-env.js';
import {
  configSchema,
  durableSchema,
  httpServerSchema,
  isStdioServer,
  modelSchema,
  sandboxSchema,
  stdioServerSchema,
  stdSchema,
  type AgentSpacesConfigInput,
  type McpServerConfig,
  type OpenApiConfig,
  type ResolvedConfig,
  openApiFilterSchema,
  openApiSchema,
} from './schema.js';

/** Config files looked for, in order, when none is named. */
export const CONFIG_FILES = [
  'agent-spaces.config.ts',
  'agent-spaces.config.mts',
  'agent-spaces.config.js',
  'agent-spaces.config.mjs',
  'agent-spaces.config.json',
];

export const DEFAULT_CAPABILITIES = ['capabilities/*.ts', 'capabilities/*.json', 'tools/*.json'];
export const DEFAULT_OUT_DIR = '.agent-spaces';

export interface LoadConfigOptions {
  /** Where to look for a config file (default: the current directory). */
  cwd?: string;
  /** A config file to load (relative to `cwd`). */
  file?: string;
  /** Variables for `${VAR}` expansion (default: `process.env`). */
  env?: Record<string, string | undefined>;
  /**
   * What `capabilities` entries like `mcp:slack` select from (see config/registry.ts); default: the
   * user-level registry (`$AGENT_SPACES_HOME/registry.config.*`, else `~/.agent-spaces/`), loaded only
   * when the config selects something.
   */
  registry?: Registry;
}

/**
 * Finds, loads and validates the configuration. Every problem is listed with its path in one
 * `ConfigError`; nothing is half-applied. With no config file, the defaults apply.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ResolvedConfig> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const file = options.file ? path.resolve(cwd, options.file) : findConfigFile(cwd);
  if (options.file && (!file || !existsSync(file))) {
    throw new ConfigError(`config file not found: ${options.file}`, [
      { path: '', message: `no file at ${path.resolve(cwd, options.file)}` },
    ]);
  }
  const raw = file ? await readConfigFile(file) : {};
  const env = options.env ?? process.env;
  const config = resolveConfig(raw, { root: file ? path.dirname(file) : cwd, ...(file ? { file } : {}), env });
  if (!hasSelections(config.capabilities)) return config;
  // Imported here: the registry resolves its entries with this file's resolveConfig.
  const { loadRegistry, selectFromRegistry } = await import('./registry.js');
  return selectFromRegistry(config, options.registry ?? (await loadRegistry({ env })));
}

/** Validates a config object (as written by the user) and resolves paths and `${VAR}`s. */
export function resolveConfig(
  raw: unknown,
  options: { root: string; file?: string; env?: Record<string, string | undefined> },
): ResolvedConfig {
  const where = options.file ? ` in ${options.file}` : '';
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error);
    throw new ConfigError(`invalid configuration${where}:\n${formatIssues(issues)}`, issues, fileOption(options.file));
  }
  const issues: ConfigIssue[] = [];
  const env = options.env ?? process.env;
  const mcpServers: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(parsed.data.mcpServers ?? {})) {
    if (server.disabled) continue;
    const expanded = expandEnvDeep(server, env, `mcpServers.${name}`, issues);
    // A stdio server starts in the config's folder unless told otherwise, so relative args work anywhere.
    mcpServers[name] = isStdioServer(expanded) ? { ...expanded, cwd: path.resolve(options.root, expanded.cwd ?? '.') } : expanded;
  }
  const openapi: Record<string, OpenApiConfig> = {};
  for (const [name, api] of Object.entries(parsed.data.openapi ?? {})) {
    if (api.disabled) continue;
    const expanded = expandEnvDeep(api, env, `openapi.${name}`, issues);
    openapi[name] = isHttpUrl(expanded.spec) ? expanded : { ...expanded, spec: path.resolve(options.root, expanded.spec) };
  }
  const sdks = Object.fromEntries(
    Object.entries(parsed.data.sdks ?? {})
      .filter(([, sdk]) => sdk.disabled !== true)
      .map(([name, sdk]) => [name, expandEnvDeep(sdk, env, `sdks.${name}`, issues)]),
  );
  const model = expandEnvDeep(parsed.data.model ?? {}, env, 'model', issues);
  const store = parsed.data.store === undefined ? undefined : expandEnvDeep(parsed.data.store, env, 'store', issues);
  const telemetry = parsed.data.telemetry === undefined ? undefined : expandEnvDeep(parsed.data.telemetry, env, 'telemetry', issues);
  if (issues.length > 0) {
    throw new ConfigError(`invalid configuration${where}:\n${formatIssues(issues)}`, issues, fileOption(options.file));
  }
  const root = options.root;
  const std = parsed.data.std ?? {};
  const outDir = path.resolve(root, parsed.data.outDir ?? DEFAULT_OUT_DIR);
  return {
    root,
    ...(options.file ? { file: options.file } : {}),
    capabilities: parsed.data.capabilities ?? DEFAULT_CAPABILITIES,
    mcpServers,
    ...(Object.keys(openapi).length > 0 ? { openapi } : {}),
    ...(Object.keys(sdks).length > 0 ? { sdks } : {}),
    outDir,
    sandbox: parsed.data.sandbox ?? {},
    std: std.fs?.root === undefined ? std : { ...std, fs: { ...std.fs, root: path.resolve(root, std.fs.root) } },
    model,
    agents: (parsed.data.agents ?? []).map((entry) => resolveAgentEntry(entry, root)),
    agentSessions: path.resolve(root, parsed.data.agentSessions ?? path.join(outDir, 'sessions')),
    ...(store === undefined ? {} : { store }),
    ...(parsed.data.durable === undefined ? {} : { durable: parsed.data.durable }),
    ...(parsed.data.session === undefined ? {} : { session: parsed.data.session }),
    ...(parsed.data.callers === undefined ? {} : { callers: parsed.data.callers }),
    ...(telemetry === undefined ? {} : { telemetry }),
  };
}

export function formatIssues(issues: ConfigIssue[]): string {
  return issues.map((issue) => `  - ${issue.path || '(root)'}: ${issue.message}`).join('\n');
}

/** An OpenAPI spec named by URL (fetched) rather than by path (read). */
function isHttpUrl(spec: string): boolean {
  return /^https?:\/\//i.test(spec);
}

function fileOption(file: string | undefined): { file?: string } {
  return file ? { file } : {};
}

function findConfigFile(cwd: string): string | undefined {
  for (const name of CONFIG_FILES) {
    const candidate = path.join(cwd, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A config-shaped file's default export (`.ts`, `.js`, …) or JSON, with errors naming the file. */
export async function readConfigFile(file: string): Promise<unknown> {
  if (file.endsWith('.json')) {
    const text = await readFile(file, 'utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      const message = await withLineAndColumn(errorMessage(error), text);
      throw new ConfigError(`config file ${file} is not valid JSON: ${message}`, [{ path: '', message }], { file, cause: error });
    }
  }
  try {
    const module = (await importTypeScript(file)) as { default?: unknown };
    if (module.default === undefined || isCommonJsWithoutDefault(module.default)) {
      throw new ConfigError(
        `config file ${file} has no default export: write export default defineConfig({ ... })`,
        [{ path: '', message: 'no default export' }],
        { file },
      );
    }
    return unwrapDefault(module.default);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`could not load config file ${file}: ${errorMessage(error)}`, [{ path: '', message: errorMessage(error) }], {
      file,
      cause: error,
    });
  }
}

/** Bun and Deno import TypeScript themselves; tsx's loader hooks are Node's (under Bun they fail). */
const importsTypeScriptNatively =
  typeof (process.versions as Record<string, string | undefined>)['bun'] === 'string' || 'Deno' in globalThis;

/**
 * Imports a TypeScript (or JavaScript) module from the host, through tsx when needed: what tsx's
 * `tsImport` does (its loader hooks for ES modules and for CommonJS, under a namespace of this import's
 * own), and before it `shareAgentSpaces`.
 */
export async function importTypeScript(file: string): Promise<unknown> {
  if (/\.(c|m)?js$/.test(file) || importsTypeScriptNatively) return keepAliveUntil(import(pathToFileURL(file).href));
  const [esm, cjs] = await keepAliveUntil(Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]));
  const namespace = randomUUID();
  cjs.register({ namespace });
  shareAgentSpaces(file, namespace);
  const api = esm.register({ namespace });
  shareAgentSpacesEsm(file, namespace);
  return keepAliveUntil(api.import(pathToFileURL(file).href, import.meta.url));
}

/**
 * The resolve hook of `shareAgentSpacesEsm` for one namespace, as a module of its own (a data: URL, so that it ships
 * inside this file). Registered after tsx's hooks for one namespace, it runs before them: it lets them
 * resolve, and when the answer is the package's entry under that namespace (`…/dist/index.js?tsx-namespace=…`),
 * answers the entry's own URL instead, the one Node's ES module cache already holds for the host.
 * Anything else passes unchanged.
 */
function shareHook(namespace: string): string {
  // One module per namespace: Node keeps one instance per URL, and initialize() would overwrite the
  // settings of an earlier registration whose imports are still running.
  return `data:text/javascript,${encodeURIComponent(`// agent-spaces share hook, tsx namespace ${namespace}
let entry, answer, namespace;
export function initialize(data) { entry = data.entry; answer = data.answer; namespace = data.namespace; }
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (typeof result.url !== 'string' || !result.url.startsWith('file:')) return result;
  const url = new URL(result.url);
  if (url.searchParams.get('tsx-namespace') !== namespace) return result;
  url.searchParams.delete('tsx-namespace');
  if (url.search !== '' || url.hash !== '' || url.href !== entry) return result;
  return { ...result, url: answer, shortCircuit: true };
}
`)}`;
}

/**
 * A `.ts` file in an ESM package (or a `.mts` file) is loaded by tsx's ESM loader under the namespace
 * of its import: every URL it resolves carries `?tsx-namespace=…`, so its `import … from 'agent-spaces'`
 * would load one more full copy of the library per file (each a module instance of its own: its own
 * classes and registries, some 0.7 s of CPU in an installed package). A resolve hook of ours (Node's
 * `module.register`) maps the package's entry, as this file resolves it, back to its plain file URL, so
 * the ES module cache returns the host's instance. Only a JavaScript entry (a checkout resolving the
 * TypeScript sources under the agent-spaces-source condition keeps tsx's way), only when the package
 * is found from the file; otherwise tsx loads it as before.
 */
function shareAgentSpacesEsm(file: string, namespace: string): void {
  let resolved: string;
  try {
    resolved = createRequire(file).resolve('agent-spaces');
  } catch {
    return;
  }
  if (!/\.m?js$/.test(resolved)) return;
  const entry = pathToFileURL(resolved).href;
  const answer = pathToFileURL(hostInstanceOf(resolved)).href;
  // tsx's hooks run off the main thread (module.register) on Node 20, in it (module.registerHooks)
  // where that exists and tsx chooses it (Node 22.22.3+, 24.11.1+): ours the same ways, each after tsx's.
  register(shareHook(namespace), { data: { entry, answer, namespace } });
  const { registerHooks } = Module as unknown as { registerHooks?: (hooks: { resolve: SyncResolve }) => unknown };
  if (typeof registerHooks === 'function') {
    registerHooks({ resolve: (specifier, context, nextResolve) => sharedEntry(nextResolve(specifier, context), entry, answer, namespace) });
  }
}

type ResolveResult = { url: string; format?: string | null; shortCircuit?: boolean };
type SyncResolve = (
  specifier: string,
  context: object,
  nextResolve: (specifier: string, context: object) => ResolveResult,
) => ResolveResult;

/** The in-thread form of `shareHook`'s resolve. */
function sharedEntry(result: ResolveResult, entry: string, answer: string, namespace: string): ResolveResult {
  if (typeof result.url !== 'string' || !result.url.startsWith('file:')) return result;
  const url = new URL(result.url);
  if (url.searchParams.get('tsx-namespace') !== namespace) return result;
  url.searchParams.delete('tsx-namespace');
  if (url.search !== '' || url.hash !== '' || url.href !== entry) return result;
  return { ...result, url: answer, shortCircuit: true };
}

/**
 * The file whose instance the host holds for the package's entry `resolved`: the entry itself, or, when
 * the host is the CLI run from its bundle (bin/agent-spaces.js, scripts/bundle-cli.mjs), the bundle's
 * own copy of the library's index, which shares its modules with the CLI's.
 */
function hostInstanceOf(resolved: string): string {
  const bundle = (globalThis as Record<symbol, { entry?: unknown; index?: unknown } | undefined>)[Symbol.for('agent-spaces.cli-bundle')];
  return bundle !== undefined && bundle.entry === resolved && typeof bundle.index === 'string' ? bundle.index : resolved;
}

/**
 * A `.ts` file outside an ESM package (the README's `capabilities/weather.ts` in a folder whose
 * package.json has no `"type": "module"`) is loaded by tsx as CommonJS: its `import … from
 * 'agent-spaces'` becomes `require('agent-spaces')`, which tsx answers by compiling every ES module of
 * the package to CommonJS (some 470 files: a second copy of the library, measured at 2.6 s of CPU, more
 * than all the rest of a run). Node ≥ 20.19 requires an ES module itself, from the instance already
 * loaded: that module is put where tsx looks first (the require cache, under the name tsx gives it in
 * this namespace). Only the package the file resolves `agent-spaces` to; when it cannot be required so
 * (no such package, a TypeScript entry in a checkout, an older Node), tsx loads it as before.
 */
function shareAgentSpaces(file: string, namespace: string): void {
  if (process.features.require_module !== true) return;
  const require = createRequire(file);
  try {
    const resolved = require.resolve('agent-spaces');
    if (!/\.m?js$/.test(resolved)) return;
    const key = `${resolved}?namespace=${namespace}`;
    if (require.cache[key] !== undefined) return;
    const exports = require(hostInstanceOf(resolved)) as unknown;
    const shared = new Module(key);
    shared.filename = resolved;
    shared.exports = exports;
    shared.loaded = true;
    require.cache[key] = shared;
  } catch {
    // Not found or not loadable here: tsx's own way, unchanged.
  }
}

/** A `.ts` file outside an ESM package, loaded as CommonJS, with named exports but no default one. */
function isCommonJsWithoutDefault(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Reflect.get(value, '__esModule') === true && !('default' in value);
}

/** A `.ts` file outside an ESM package is loaded as CommonJS, which nests the default export once more. */
export function unwrapDefault(value: unknown): unknown {
  if (typeof value === 'object' && value !== null && 'default' in value) {
    const keys = Object.keys(value).filter((key) => key !== '__esModule');
    if (keys.length === 1) return (value as { default: unknown }).default;
  }
  return value;
}

function zodIssues(error: z.ZodError): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  collectIssues(error.issues, [], issues);
  return issues;
}

function collectIssues(zodIssues: readonly z.core.$ZodIssue[], at: PropertyKey[], issues: ConfigIssue[]): void {
  for (const issue of zodIssues) {
    const where = [...at, ...issue.path];
    // A union of server shapes reports one issue per branch; list the branch that fits best.
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const best = [...issue.errors].sort((a, b) => a.length - b.length)[0] ?? [];
      collectIssues(best, where, issues);
      continue;
    }
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const suggestion = closestKey(key, KNOWN_KEYS);
        issues.push({
          path: [...where, key].map(String).join('.'),
          message: `unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
        });
      }
      continue;
    }
    // An invalid record key (a server name) says why only in its nested issues.
    if (issue.code === 'invalid_key' && issue.issues.length > 0) {
      for (const sub of issue.issues) issues.push({ path: where.map(String).join('.'), message: sub.message });
      continue;
    }
    issues.push({ path: where.map(String).join('.'), message: issue.message });
  }
}

/** Every key the config schema knows, at any level, for "did you mean" hints. */
const KNOWN_KEYS = [
  configSchema,
  stdioServerSchema,
  httpServerSchema,
  openApiSchema,
  openApiFilterSchema,
  sandboxSchema,
  stdSchema,
  modelSchema,
  durableSchema,
].flatMap((schema) => Object.keys(schema.shape));

export type { AgentSpacesConfigInput };

/**
 * Where the JSON breaks, as a person editing the file counts: line and column. JSON.parse gives an
 * offset at best (Node 20 often only quotes the text around it); YAML, a superset of JSON, reads the same
 * text and says where it stops making sense.
 */
async function withLineAndColumn(message: string, text: string): Promise<string> {
  const offset = /at position (\d+)/.exec(message)?.[1];
  if (offset !== undefined) {
    const before = text.slice(0, Number(offset));
    return `${message} (line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')})`;
  }
  const { parseDocument } = await import('yaml');
  const start = parseDocument(text).errors[0]?.linePos?.[0];
  return start === undefined ? message : `${message} (line ${start.line}, column ${start.col})`;
}
