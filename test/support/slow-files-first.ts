/**
 * The order vitest starts test files in: the longest first, so that the last files to start are short
 * ones and no long file runs alone at the end of the suite while the other workers have nothing to do.
 *
 * Vitest's own order does that only with its cache of last durations (under node_modules/.vite, which
 * `npm ci` removes): without it, it starts the larger files first, and the heaviest files of all
 * (test/e2e/package-node<N>.test.ts, four lines each, minutes each) last. Here a file's weight is its
 * duration in vitest's cache when it is there, else its duration in the last CI run measured by hand
 * (KNOWN_SLOW, seconds), else unknown. Files that failed last time still start first (as in vitest's
 * order); then files known to take over HEAVY_MS, longest first; then unknown files, larger first (a new
 * file may be slow); then the rest, longest first.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take about a minute or more (seconds): the ten slowest as CI of 2026-11-29 measured them (2 cores),
 * the others from a full local run scaled to CI. Only read for a file vitest's cache does not know.
 */
export const KNOWN_SLOW: Readonly<Record<string, number>> = {
  'test/e2e/cli.test.ts': 292,
  'test/hostile/quickjs-engine.test.ts': 166,
  'test/e2e/package.test.ts': 228,
  'worker/durable-runs.test.ts': 201,
  'compiler/sandbox-modules/sandbox-modules.test.ts': 182,
  'test/e2e/package-node26.test.ts': 174,
  'test/e2e/package-node22.test.ts': 173,
  'test/e2e/package-node24.test.ts': 164,
  'test/e2e/package-eval.test.ts': 160,
  'test/e2e/serve.test.ts': 150,
  'test/e2e/task.test.ts': 150,
  'server/serve-clients.test.ts': 111,
  'test/e2e/studio-attach.test.ts': 108,
  'store/persistence.test.ts': 100,
  'test/hostile/worker-channel.test.ts': 95,
  'store/retention.test.ts': 95,
  'server/serve-store.test.ts': 90,
  'runtime/sandbox-contract.test.ts': 90,
  'store/store-setup.test.ts': 80,
  'test/e2e/interrupt.test.ts': 80,
  'test/hostile/co-resident-runs.test.ts': 65,
  'test/hostile/secrets.test.ts': 62,
  'test/e2e/agents.test.ts': 60,
  'runtime/sandbox-globals.test.ts': 55,
};

/** A file known to take longer than this starts before the files of unknown duration. */
const HEAVY_MS = 30_000;

export default class SlowFilesFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rank = (spec: TestSpecification): { failed: boolean; weight: number | undefined; size: number } => {
      const file = relative(root, spec.moduleId).split('\\').join('/');
      const key = `${spec.project.name}:${file}`;
      const cached = this.ctx.cache.getFileTestResults(key);
      const known = KNOWN_SLOW[file];
      return {
        failed: cached?.failed === true,
        weight: cached?.duration ?? (known === undefined ? undefined : known * 1000),
        size: this.ctx.cache.getFileStats(key)?.size ?? 0,
      };
    };
    // 0: failed last time; 1: heavy; 2: unknown; 3: the rest.
    const group = (of: ReturnType<typeof rank>): number => (of.failed ? 0 : of.weight === undefined ? 2 : of.weight > HEAVY_MS ? 1 : 3);
    const ranked = files.map((spec) => ({ spec, rank: rank(spec) }));
    ranked.sort((a, b) => {
      const byGroup = group(a.rank) - group(b.rank);
      if (byGroup !== 0) return byGroup;
      if (a.rank.weight !== undefined && b.rank.weight !== undefined) return b.rank.weight - a.rank.weight;
      return b.rank.size - a.rank.size;
    });
    return Promise.resolve(ranked.map(({ spec }) => spec));
  }
}
