import path from 'node:path';
import { resolveAgentEntry } from './agent-entries.js';

/**
 * One kind of capability definition a registry holds, and the config section a selection of it fills.
 * `record` kinds are config sections keyed by name (`mcpServers.<name>`, `openapi.<name>`): the registry
 * holds that section as the config writes it, and a selected entry is copied under its name. `list`
 * kinds are config lists (`capabilities`, `agents`): the registry names each entry (`files: { crm:
 * './tools/crm.json' }`), and a selected entry's values are appended, made absolute against the registry.
 * A new kind is one row here.
 */
export type RegistryKind =
  | {
      prefix: string;
      shape: 'record';
      section: string;
      title: string;
      /** Paths of an entry that `resolveConfig` leaves relative (the source resolves them against the space's root), made absolute. */
      resolveEntry?: (entry: Record<string, unknown>, root: string) => Record<string, unknown>;
    }
  | { prefix: string; shape: 'list'; section: string; key: string; title: string; resolve: (value: string, root: string) => string };

export const REGISTRY_KINDS: readonly RegistryKind[] = [
  {
    prefix: 'files',
    shape: 'list',
    key: 'files',
    section: 'capabilities',
    title: 'tool files',
    resolve: (value, root) => path.resolve(root, value),
  },
  { prefix: 'mcp', shape: 'record', section: 'mcpServers', title: 'MCP servers' },
  { prefix: 'openapi', shape: 'record', section: 'openapi', title: 'OpenAPI services' },
  {
    prefix: 'sdk',
    shape: 'record',
    section: 'sdks',
    title: 'SDKs',
    resolveEntry: (entry, root) =>
      typeof entry['module'] === 'string' ? { ...entry, module: path.resolve(root, entry['module']) } : entry,
  },
  { prefix: 'agent', shape: 'list', key: 'agents', section: 'agents', title: 'agents', resolve: resolveAgentEntry },
];

/** The registry file's key of a kind: the config section for record kinds, the named list for list kinds. */
export function registryKey(kind: RegistryKind): string {
  return kind.shape === 'record' ? kind.section : kind.key;
}

/** The kind a selection entry names (`mcp:slack` → mcp), or undefined for a plain file path or glob. */
export function kindOfSelection(entry: string): RegistryKind | undefined {
  const colon = entry.indexOf(':');
  if (colon <= 1) return undefined; // `C:\…` is a path
  const prefix = entry.slice(0, colon);
  return REGISTRY_KINDS.find((kind) => kind.prefix === prefix);
}

/** Whether a config's `capabilities` list selects anything from a registry. */
export function hasSelections(capabilities: readonly string[]): boolean {
  return capabilities.some((entry) => kindOfSelection(entry) !== undefined);
}
