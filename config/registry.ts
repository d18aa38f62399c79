import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { closestKey, ConfigError, type ConfigIssue } from '../core/index.js';
import { formatIssues, readConfigFile, resolveConfig } from './load-config.js';
import { REGISTRY_KINDS, kindOfSelection, registryKey, type RegistryKind } from './registry-kinds.js';
import { configSchema, type AgentSpacesConfigInput, type ResolvedConfig } from './schema.js';

/** Registry files looked for in the home folder, in order. */
export const REGISTRY_FILES = [
  'registry.config.ts',
  'registry.config.mts',
  'registry.config.js',
  'registry.config.mjs',
  'registry.config.json',
];

const NAME = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'registry names use letters, digits, _ . -');

/**
 * The registry as written: the record sections of the config (`mcpServers`, `openapi`, … exactly as a
 * space's config writes them) and named lists (`files: { crm: './tools/crm.json' }`, `agents: {
 * guide: './agents/guide' }`). Built from {@link REGISTRY_KINDS}, one key per kind.
 */
export const registrySchema = z.strictObject(
  Object.fromEntries(
    REGISTRY_KINDS.map((kind) => [
      registryKey(kind),
      kind.shape === 'record'
        ? (configSchema.shape as Record<string, z.ZodType>)[kind.section]!.optional()
        : z.record(NAME, z.union([z.string().min(1), z.array(z.string().min(1)).min(1)])).optional(),
    ]),
  ),
);

/** A registry as its file or `createHost({ registry })` writes it. */
export type RegistryInput = Pick<AgentSpacesConfigInput, 'mcpServers' | 'openapi' | 'sdks'> & {
  /** Tool files by name (a path or glob, or several), relative to the registry file's folder. */
  files?: Record<string, string | string[]>;
  /** Agent directories or A2A URLs by name. */
  agents?: Record<string, string | string[]>;
} & Record<string, unknown>;

/** Type help for `registry.config.ts`: `export default defineRegistry({ mcpServers: { … } })`. */
export function defineRegistry(registry: RegistryInput): RegistryInput {
  return registry;
}

/**
 * A loaded registry: per kind prefix (`mcp`, `openapi`, `files`, `agent`), its entries by name, resolved
 * (`${VAR}`s expanded, paths absolute against the registry's folder), ready to be copied into a space.
 */
export interface Registry {
  readonly entries: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Where the entries came from (the registry file, `code`), for messages. */
  readonly origins: readonly string[];
}

export const EMPTY_REGISTRY: Registry = { entries: {}, origins: [] };

/** The user-level folder: `$AGENT_SPACES_HOME`, else `~/.agent-spaces`. */
export function agentSpacesHome(env: Record<string, string | undefined> = process.env): string {
  const home = env['AGENT_SPACES_HOME'];
  return home ? path.resolve(home) : path.join(os.homedir(), '.agent-spaces');
}

/** The registry file of a home folder (`registry.config.ts`, … `.json`), if there is one. */
export function findRegistryFile(home: string): string | undefined {
  return REGISTRY_FILES.map((name) => path.join(home, name)).find((file) => existsSync(file));
}

/**
 * Loads the user-level registry: `file`, else the first of {@link REGISTRY_FILES} in `home` (default
 * {@link agentSpacesHome}). No file: an empty registry.
 */
export async function loadRegistry(
  options: { home?: string; file?: string; env?: Record<string, string | undefined> } = {},
): Promise<Registry> {
  const env = options.env ?? process.env;
  const file = options.file ? path.resolve(options.file) : findRegistryFile(options.home ?? agentSpacesHome(env));
  if (file === undefined) return EMPTY_REGISTRY;
  if (!existsSync(file)) {
    throw new ConfigError(`registry file not found: ${file}`, [{ path: '', message: `no file at ${file}` }], { file });
  }
  return resolveRegistry(await readConfigFile(file), { root: path.dirname(file), file, env });
}

/** Validates a registry as written and resolves its entries against `root` (the registry file's folder). */
export function resolveRegistry(
  raw: unknown,
  options: { root: string; file?: string; env?: Record<string, string | undefined> },
): Registry {
  const where = options.file ? ` in ${options.file}` : '';
  const parsed = registrySchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.flatMap((issue): ConfigIssue[] =>
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ path: key, message: unknownKey(key) }))
        : [{ path: issue.path.map(String).join('.'), message: issue.message }],
    );
    throw new ConfigError(`invalid registry${where}:\n${formatIssues(issues)}`, issues, options.file ? { file: options.file } : {});
  }
  const data = parsed.data as Record<string, unknown>;
  // Record kinds are resolved as a config holding only those sections: the same checks, `${VAR}`s and paths.
  const records = Object.fromEntries(
    REGISTRY_KINDS.filter((kind) => kind.shape === 'record' && data[kind.section] !== undefined).map((kind) => [
      kind.section,
      data[kind.section],
    ]),
  );
  const resolved = resolveConfig({ ...records, capabilities: [] }, options) as unknown as Record<string, unknown>;
  const entries: Record<string, Record<string, unknown>> = {};
  for (const kind of REGISTRY_KINDS) {
    if (kind.shape === 'record') {
      const section = (resolved[kind.section] ?? {}) as Record<string, Record<string, unknown>>;
      const { resolveEntry } = kind;
      entries[kind.prefix] = resolveEntry
        ? Object.fromEntries(Object.entries(section).map(([name, entry]) => [name, resolveEntry(entry, options.root)]))
        : { ...section };
      continue;
    }
    const named = (data[kind.key] ?? {}) as Record<string, string | string[]>;
    entries[kind.prefix] = Object.fromEntries(
      Object.entries(named).map(([name, value]) => [
        name,
        (Array.isArray(value) ? value : [value]).map((one) => kind.resolve(one, options.root)),
      ]),
    );
  }
  return { entries, origins: [options.file ?? 'code'] };
}

/** Both registries' entries; where both name one entry of a kind, `over`'s wins. */
export function mergeRegistries(base: Registry, over: Registry): Registry {
  const entries: Record<string, Record<string, unknown>> = {};
  for (const prefix of new Set([...Object.keys(base.entries), ...Object.keys(over.entries)])) {
    entries[prefix] = { ...base.entries[prefix], ...over.entries[prefix] };
  }
  return { entries, origins: [...base.origins, ...over.origins] };
}

/**
 * The config with what its `capabilities` select from the registry (`mcp:slack`, `openapi:github`,
 * `files:crm`, `agent:guide`, globs over the names like `mcp:*`) copied into its sections; plain paths
 * and globs stay tool files. The space's own entry of a name wins over one a glob selects; one it
 * defines and selects by exact name is an error, as is a selection naming nothing (with the closest names).
 */
export function selectFromRegistry(config: ResolvedConfig, registry: Registry): ResolvedConfig {
  const issues: ConfigIssue[] = [];
  const picked = new Map<RegistryKind, Map<string, boolean>>(); // name → selected by exact name
  const plain: string[] = [];
  config.capabilities.forEach((entry, index) => {
    const kind = kindOfSelection(entry);
    if (kind === undefined) {
      const unknown = unknownKind(entry);
      if (unknown === undefined) plain.push(entry);
      else issues.push({ path: `capabilities[${index}]`, message: unknown });
      return;
    }
    const pattern = entry.slice(kind.prefix.length + 1);
    const names = Object.keys(registry.entries[kind.prefix] ?? {});
    const glob = /[*?]/.test(pattern);
    const matched = glob ? names.filter((name) => globRegExp(pattern).test(name)) : names.filter((name) => name === pattern);
    if (matched.length === 0) issues.push({ path: `capabilities[${index}]`, message: notFound(entry, kind, pattern, registry) });
    const ofKind = picked.get(kind) ?? new Map<string, boolean>();
    for (const name of matched) ofKind.set(name, (ofKind.get(name) ?? false) || !glob);
    picked.set(kind, ofKind);
  });
  const selected: Record<string, unknown> = { capabilities: plain };
  for (const [kind, names] of picked) {
    const entries = registry.entries[kind.prefix] ?? {};
    if (kind.shape === 'list') {
      const current = (selected[kind.section] ?? (config as unknown as Record<string, unknown>)[kind.section] ?? []) as string[];
      const added = [...names.keys()].flatMap((name) => entries[name] as string[]);
      selected[kind.section] = [...new Set([...current, ...added])];
      continue;
    }
    const own = ((config as unknown as Record<string, unknown>)[kind.section] ?? {}) as Record<string, unknown>;
    const merged: Record<string, unknown> = { ...own };
    for (const [name, exact] of names) {
      if (name in own && exact) {
        issues.push({
          path: `${kind.section}.${name}`,
          message: `defined by the space and selected from the registry as "${kind.prefix}:${name}": keep one`,
        });
      } else if (!(name in own)) merged[name] = entries[name];
    }
    selected[kind.section] = merged;
  }
  if (issues.length > 0) {
    const where = config.file ? ` in ${config.file}` : '';
    throw new ConfigError(`the capabilities selected${where} do not match the registry:\n${formatIssues(issues)}`, issues, {
      ...(config.file ? { file: config.file } : {}),
    });
  }
  return { ...config, ...(selected as Partial<ResolvedConfig>) };
}

/** The names a registry holds, as selections (`mcp:slack`), kind by kind. */
export function registryNames(registry: Registry): string[] {
  return REGISTRY_KINDS.flatMap((kind) => Object.keys(registry.entries[kind.prefix] ?? {}).map((name) => `${kind.prefix}:${name}`));
}

/** Why a selection names nothing: the closest name of its kind, the same name under another kind, or what the kind holds. */
function notFound(entry: string, kind: RegistryKind, pattern: string, registry: Registry): string {
  const names = Object.keys(registry.entries[kind.prefix] ?? {});
  const from = registry.origins.length > 0 ? ` (${registry.origins.join(', ')})` : ' (no registry file, none given in code)';
  if (/[*?]/.test(pattern)) {
    return `"${entry}" matches nothing in the registry${from}: its ${kind.title} are ${names.length > 0 ? names.join(', ') : 'none'}`;
  }
  const close = closestKey(pattern, names);
  if (close !== undefined) return `"${entry}" is not in the registry${from}: did you mean "${kind.prefix}:${close}"?`;
  const elsewhere = REGISTRY_KINDS.filter((other) => other !== kind && pattern in (registry.entries[other.prefix] ?? {}));
  if (elsewhere.length > 0) {
    return `"${entry}" is not in the registry${from}: did you mean ${elsewhere.map((other) => `"${other.prefix}:${pattern}"`).join(' or ')}?`;
  }
  const shown = names.slice(0, 10).map((name) => `${kind.prefix}:${name}`);
  return `"${entry}" is not in the registry${from}: ${names.length === 0 ? `it holds no ${kind.title}` : `its ${kind.title} are ${shown.join(', ')}${names.length > shown.length ? ', …' : ''}`}`;
}

/** A `word:` prefix that is no kind (`mpc:slack`), said with the closest kind; undefined for a path. */
function unknownKind(entry: string): string | undefined {
  const prefix = /^([a-z][a-z0-9-]+):(?!\/\/)/.exec(entry)?.[1];
  if (prefix === undefined) return undefined;
  const kinds = REGISTRY_KINDS.map((kind) => kind.prefix);
  const close = closestKey(prefix, kinds);
  return `"${prefix}:" is no kind of registry entry${close ? ` (did you mean "${close}:"?)` : ''}; the kinds are ${kinds.map((kind) => `${kind}:`).join(', ')}`;
}

function unknownKey(key: string): string {
  const known = REGISTRY_KINDS.map(registryKey);
  const close = closestKey(key, known);
  return `unknown key${close ? ` (did you mean "${close}"?)` : ''}; a registry holds ${known.join(', ')}`;
}

function globRegExp(pattern: string): RegExp {
  const body = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}
