import type { Backend } from './backend.js';
import type { ToolCallers } from './callers.js';
import type { CapabilityOrigin, CapabilitySpec, CompileWarning } from './manifest.js';
import type { RawCapability, SourceFailure } from './raw-capability.js';
import type { Secret } from './secrets.js';

/** The `kind` of a {@link CapabilityOrigin} (`json`, `typescript`, `mcp`, `openapi`, `std`, `agent`). */
export type SourceKindName = CapabilityOrigin['kind'];

/**
 * One kind of capability source (tool files, MCP servers, OpenAPI services, the standard library,
 * agents): how its tools are described (for the compiler) and how they are performed (for the bridge)
 * live together. It is declared here, in the vocabulary every part shares, so that the compiler can
 * loop over the sources it is handed and `space/` can connect them without either importing
 * `sources/`. `Config` is the config a source reads (`ResolvedConfig` of `config/`, which core does not
 * import; `sources/capability-source.ts` binds it). Nothing outside a source switches on its kind.
 */
export interface CapabilitySource<Config = unknown> {
  /**
   * The `kind` of the origins this source writes into the specs it produces; a source may produce
   * several (tool files: `json` and `typescript`). Two sources given to one space never share a kind:
   * a built module's backend is the one of the source whose kind it has.
   */
  readonly kind: SourceKindName | readonly SourceKindName[];
  /**
   * Finds this source's capabilities. Each unit (a file, a server, an API) is loaded through
   * `context.load`, which reports progress and turns a unit's failure into a `SourceFailure` (the
   * build keeps that unit's previous output), so one broken unit never fails the others.
   */
  discover(context: DiscoverContext<Config>): Promise<Discovery>;
  /**
   * The backend performing calls of `specs` — the built modules whose `source.kind` is this source's
   * kind. Called once per space, when the first run or call needs it; the backend is closed with the space.
   */
  connect(specs: readonly CapabilitySpec[], context: ConnectContext<Config>): Promise<Backend>;
  /** A readable name of one of this source's origins for progress lines and messages (a path, `mcp:<server>`). */
  describe(origin: CapabilityOrigin): string;
  /**
   * How a sentence names one of this source's origins, for a person (the studio's module page, the
   * head of a schema error): `MCP server "github"`, `standard library`. Absent: {@link describe}.
   */
  title?(origin: CapabilityOrigin): string;
  /**
   * What this source's authors call a tool's input and output schemas, for messages about them: MCP's
   * own `inputSchema`/`outputSchema`. Absent: {@link DEFAULT_SCHEMA_NAMES} (a tool file's words).
   */
  readonly schemaNames?: SchemaNames;
  /**
   * The secrets this source's configuration holds (an MCP server's env, key arguments, headers and
   * URL credentials; an API's headers and URL credentials), each labelled: the one redactor cuts
   * them out of everything that leaves the host. A kind whose configuration holds none returns `[]`;
   * it must still say so (the contract test of `sources/` checks every registered kind).
   */
  secrets(config: Config): Secret[];
  /**
   * The local files this source reads for a build (tool files, OpenAPI specs that are files): a build
   * is stale when one of them changed, or the set of them did. None when absent (MCP servers are
   * checked at call time).
   */
  inputFiles?(config: Config): Promise<string[]>;
  /**
   * Who may call the tools of one of this source's origins, as its configuration says (an MCP
   * server's or an API's `callers`): one setting for all of them, or one per tool name (`'*'` for the
   * rest). None when absent; the compiler settles each function's callers with it (`FunctionSpec.callers`).
   */
  callers?(origin: CapabilityOrigin, config: Config): SourceCallers | undefined;
}

/** What a source's authors call a tool's input and output schemas (see {@link CapabilitySource.schemaNames}). */
export interface SchemaNames {
  input: string;
  output: string;
}

/** The schemas' names where a source declares none: a tool file's `parameters` and `returns`. */
export const DEFAULT_SCHEMA_NAMES: SchemaNames = { input: 'the parameters schema', output: 'the returns schema' };

/** How a sentence names `origin`: as the source of its kind titles it, else describes it (see {@link CapabilitySource.title}). */
export function titleOf(source: Pick<CapabilitySource, 'describe' | 'title'>, origin: CapabilityOrigin): string {
  return source.title?.(origin) ?? source.describe(origin);
}

/** A source's `callers` setting: one for all its tools, or one per tool name (`'*'` for the rest). */
export type SourceCallers = ToolCallers | Record<string, ToolCallers>;

export interface DiscoverContext<Config = unknown> {
  config: Config;
  /**
   * Loads one unit (`label`: its path or `kind:name`), reporting its start and end to the build's
   * progress; resolves to `undefined` when the unit failed (the failure is recorded under `label`).
   */
  load(label: string, load: () => Promise<RawCapability[]>): Promise<RawCapability[] | undefined>;
  signal?: AbortSignal;
}

export interface Discovery {
  capabilities: RawCapability[];
  /** Failures found without loading a unit (a missing file, a bad entry in the config). */
  failures: SourceFailure[];
  warnings?: CompileWarning[];
}

export interface ConnectContext<Config = unknown> {
  config: Config;
}

/** The kinds of origins a source produces. */
export function kindsOf(source: Pick<CapabilitySource, 'kind'>): readonly SourceKindName[] {
  return typeof source.kind === 'string' ? [source.kind] : source.kind;
}

/** The source among `sources` that produces origins of `kind` (there is at most one). */
export function sourceOfKind<T extends Pick<CapabilitySource, 'kind'>>(sources: readonly T[], kind: SourceKindName): T | undefined {
  return sources.find((source) => kindsOf(source).includes(kind));
}

/** The local files `sources` read for a build of `config` (see {@link CapabilitySource.inputFiles}). */
export async function inputFilesOf<Config>(sources: readonly CapabilitySource<Config>[], config: Config): Promise<string[]> {
  const files = await Promise.all(sources.map((source) => source.inputFiles?.(config) ?? Promise.resolve([])));
  return files.flat();
}
