import { readPreviousBuild, type BuildResult, type KeptSource } from '../compiler/index.js';
import { isBuildStale, type Space } from '../space/index.js';
import { progress } from './output.js';

/** `@capabilities/a`, `@capabilities/a and @capabilities/b`. */
function modulesOf(source: KeptSource): string {
  const names = source.modules.map((module) => `@capabilities/${module}`);
  return names.length <= 2 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

/** What `capabilities build` adds after a source failed whose modules an earlier build made: they stay, stale. */
export function reportKeptModules(result: BuildResult): void {
  for (const source of result.sources) {
    if (source.status !== 'kept-previous') continue;
    const one = source.modules.length === 1;
    progress(
      `  ${source.source}: its module${one ? '' : 's'} ${modulesOf({ source: source.source, modules: source.modules, message: '' })} from the last good build ${one ? 'is' : 'are'} kept: ` +
        `programs still run ${one ? 'it' : 'them'}, stale, until this source builds again`,
    );
  }
}

/**
 * Before a run: builds when the build output is missing or older than its inputs, saying so (a build
 * may take seconds: MCP servers start, specs are read), with the sources that failed; then warns of
 * every module the run would use from an earlier build because its source failed (stale).
 */
export async function buildForRun(space: Pick<Space, 'config' | 'build'>): Promise<void> {
  if (await isBuildStale(space.config)) {
    progress('building capabilities…');
    const result = await space.build();
    const kept = new Set(result.sources.filter((source) => source.status === 'kept-previous').map((source) => source.source));
    // A kept source is named by the warning below; the others' modules are missing now.
    for (const failure of result.errors) if (!kept.has(failure.source)) progress(`  ${failure.source} FAILED: ${failure.message}`);
  }
  for (const source of (await readPreviousBuild(space.config.outDir))?.kept ?? []) {
    const one = source.modules.length === 1;
    progress(
      `warning: ${modulesOf(source)} ${one ? 'is' : 'are'} stale: ${source.source} failed to build (${source.message}); ` +
        `this run uses ${one ? 'its module' : 'its modules'} from the last good build. Fix the source, then run "agent-spaces capabilities build".`,
    );
  }
}
