import type { ResolvedConfig } from '../config/index.js';
import {
  createRedactor,
  DEFAULT_SCHEMA_NAMES,
  errorMessage,
  kindsOf,
  sourceLabel,
  sourceOfKind,
  titleOf,
  type CapabilityOrigin,
  type CapabilitySource,
  type CompileWarning,
  type RawCapability,
  type SourceFailure,
} from '../core/index.js';
import type { SchemaChecker, SchemaWording } from './check-schemas.js';

export type BuildProgressEvent =
  | { type: 'source-start'; source: string }
  | { type: 'source-end'; source: string; status: 'loaded' | 'failed'; functions: number; durationMs: number; message?: string };

export interface Discovered {
  raws: RawCapability[];
  failures: SourceFailure[];
  /** What the sources' schemas ask for that is not checked (unknown formats). */
  warnings: CompileWarning[];
}

interface UnitResult {
  label: string;
  raws?: RawCapability[];
  warnings?: CompileWarning[];
  failure?: string;
}

/**
 * Asks every source for its capabilities, in parallel. Each unit a source loads (a file, a server)
 * reports progress and has its schemas compiled with the bridge's ajv setup; a unit that fails is a
 * `SourceFailure` under its label and the others go on. Failures come in a stable order: those each
 * source found itself, then the failed units in the order they were started. Every failure and
 * warning (they go to the terminal, `--json` and the manifest) has the secrets the sources declare cut
 * out: a spec URL's password, a server's key quoted in its error.
 */
export async function discoverSources(
  sources: readonly CapabilitySource<ResolvedConfig>[],
  config: ResolvedConfig,
  checker: SchemaChecker,
  progress: (event: BuildProgressEvent) => void,
  signal?: AbortSignal,
): Promise<Discovered> {
  const discovered: Discovered = { raws: [], failures: [], warnings: [] };
  const redact = createRedactor({ secrets: sources.flatMap((source) => source.secrets(config)) });
  const failure = (source: string, error: unknown): SourceFailure => ({ source, message: redact.text(errorMessage(error)) });
  const units: Promise<UnitResult>[] = [];
  const checked = new Set<RawCapability>();

  const loadFor =
    (wording: SchemaWording) =>
    (label: string, loadUnit: () => Promise<RawCapability[]>): Promise<RawCapability[] | undefined> => {
      const unit = runUnit(label, loadUnit, (raws) => checker.check(raws, wording), progress, redact.text).then((result) => {
        for (const raw of result.raws ?? []) checked.add(raw);
        return result;
      });
      units.push(unit);
      return unit.then((result) => result.raws);
    };

  const discoveries = await Promise.all(
    sources.map(async (source) => {
      try {
        return await source.discover({ config, load: loadFor(wordingOf(source)), ...(signal ? { signal } : {}) });
      } catch (error) {
        // A source's own fault (not one unit's): report it under the source's kinds, build the rest.
        return { capabilities: [], failures: [failure(kindsOf(source).join('+'), error)] };
      }
    }),
  );
  const results = await Promise.all(units);
  for (const result of results) discovered.warnings.push(...(result.warnings ?? []));
  discoveries.forEach((discovery, index) => {
    discovered.failures.push(...discovery.failures.map((found) => ({ ...found, message: redact.text(found.message) })));
    discovered.warnings.push(...(discovery.warnings ?? []));
    const unchecked = discovery.capabilities.filter((raw) => !checked.has(raw));
    try {
      discovered.warnings.push(...checker.check(unchecked, wordingOf(sources[index] as CapabilitySource<ResolvedConfig>)));
      discovered.raws.push(...discovery.capabilities);
    } catch (error) {
      // Capabilities a source found without `load`: a schema that cannot compile fails them together.
      const source = sources[index] as CapabilitySource<ResolvedConfig>;
      discovered.failures.push(failure(unchecked[0] ? source.describe(unchecked[0].source) : kindsOf(source).join('+'), error));
      discovered.raws.push(...discovery.capabilities.filter((raw) => checked.has(raw)));
    }
  });
  for (const result of results) {
    if (result.failure !== undefined) discovered.failures.push({ source: result.label, message: result.failure });
  }
  discovered.warnings = discovered.warnings.map((warning) => ({ ...warning, message: redact.text(warning.message) }));
  return discovered;
}

async function runUnit(
  label: string,
  loadUnit: () => Promise<RawCapability[]>,
  check: (raws: RawCapability[]) => CompileWarning[],
  progress: (event: BuildProgressEvent) => void,
  redact: (text: string) => string,
): Promise<UnitResult> {
  const started = performance.now();
  progress({ type: 'source-start', source: label });
  try {
    const raws = await loadUnit();
    const warnings = check(raws); // throws when a schema cannot be compiled: the unit fails
    const functions = raws.reduce((sum, raw) => sum + raw.functions.length, 0);
    progress({ type: 'source-end', source: label, status: 'loaded', functions, durationMs: performance.now() - started });
    return { label, raws, warnings };
  } catch (error) {
    const message = redact(errorMessage(error));
    progress({ type: 'source-end', source: label, status: 'failed', functions: 0, durationMs: performance.now() - started, message });
    return { label, failure: message };
  }
}

/** A readable name of a source entry: as its kind describes it, or a label that needs no kind. */
export function describeWith(sources: readonly CapabilitySource[]): (source: CapabilityOrigin) => string {
  return (source) => sourceOfKind(sources, source.kind)?.describe(source) ?? sourceLabel(source);
}

/** How schema errors of `source`'s capabilities name its origins and schemas: as the source declares. */
function wordingOf(source: CapabilitySource): SchemaWording {
  return { title: (origin) => titleOf(source, origin), schemaNames: source.schemaNames ?? DEFAULT_SCHEMA_NAMES };
}
