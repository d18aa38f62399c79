import type { ResolvedConfig } from '../config/index.js';
import type { Backend, CapabilitySource, CapabilitySpec, CompileWarning, RawCapability, Secret, SourceFailure } from '../core/index.js';

/** The `kind` of a `CapabilitySource` entry (`json`, `typescript`, `mcp`, `openapi`, `std`, `agent`). */
export type SourceKindName = CapabilitySource['kind'];

/**
 * One kind of capability source (tool files, MCP servers, OpenAPI services, the standard library,
 * agents): how its tools are described (for the compiler) and how they are performed (for the bridge)
 * live together. The compiler loops over the sources it is given; `createSpace` asks each source to
 * connect the built modules it produced. Adding a kind is one folder under `sources/` and one line in
 * `sources/index.ts`; nothing outside `sources/` switches on a source's kind.
 */
export interface CapabilitySourceKind {
  /**
   * The `kind` of the `CapabilitySource` entries this source writes into the specs it produces; a
   * source may produce several (tool files: `json` and `typescript`). Two sources given to one space
   * never share a kind: a built module's backend is the one of the source whose kind it has.
   */
  readonly kind: SourceKindName | readonly SourceKindName[];
  /**
   * Finds this source's capabilities. Each unit (a file, a server, an API) is loaded through
   * `context.load`, which reports progress and turns a unit's failure into a `SourceFailure` (the
   * build keeps that unit's previous output), so one broken unit never fails the others.
   */
  discover(context: DiscoverContext): Promise<Discovery>;
  /**
   * The backend performing calls of `specs` — the built modules whose `source.kind` is this source's
   * kind. Called once per space, when the first run or call needs it; the backend is closed with the space.
   */
  connect(specs: readonly CapabilitySpec[], context: ConnectContext): Promise<Backend>;
  /** A readable name of one of this source's entries for progress lines and messages (a path, `mcp:<server>`). */
  describe(source: CapabilitySource): string;
  /**
   * The secrets this source's configuration holds (an MCP server's env, key arguments, headers and
   * URL credentials; an API's headers and URL credentials), each labelled: the one redactor cuts
   * them out of everything that leaves the host. A kind whose configuration holds none returns `[]`;
   * it must still say so (the contract test of `sources/` checks every registered kind).
   */
  secrets(config: ResolvedConfig): Secret[];
}

export interface DiscoverContext {
  config: ResolvedConfig;
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

export interface ConnectContext {
  config: ResolvedConfig;
}

/** The kinds of `CapabilitySource` entries a source produces. */
export function kindsOf(source: CapabilitySourceKind): readonly SourceKindName[] {
  return typeof source.kind === 'string' ? [source.kind] : source.kind;
}

/** The source among `sources` that produces entries of `kind` (there is at most one). */
export function sourceOfKind<T extends CapabilitySourceKind>(sources: readonly T[], kind: SourceKindName): T | undefined {
  return sources.find((source) => kindsOf(source).includes(kind));
}
