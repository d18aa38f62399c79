/**
 * Vitest's global setup: one folder under `.tmp/` for everything this test run makes with
 * `makeTempDir` (temp-dir.ts), removed when the run ends — also what a test that failed half-way
 * did not clean. Each run has its own, so two runs at once never remove each other's files.
 *
 * And which code the CLI the tests start runs: the build in dist/ when it is newer than every file of
 * the checkout (dist-fresh.ts; as in CI, after `npm ci` built it), else the sources through tsx, so an
 * old build never answers for changed sources. A value of AGENT_SPACES_FROM_DIST already set is kept.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsFresh, FROM_DIST_ENV } from './dist-fresh.js';
import { TEST_RUN_TEMP_ENV } from './temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

export default async function setup(): Promise<() => void> {
  const folder = path.join(REPO, '.tmp', `test-run-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(folder, { recursive: true });
  // Test files run in child processes started after this: they inherit it.
  process.env[TEST_RUN_TEMP_ENV] = folder;
  process.env[FROM_DIST_ENV] ??= (await distIsFresh()) ? '1' : '0';
  console.log(
    process.env[FROM_DIST_ENV] === '1'
      ? 'The CLI the tests start runs the build in dist/ (newer than every file of the checkout).'
      : 'The CLI the tests start runs the sources (through tsx): dist/ is older than a file of the checkout, or AGENT_SPACES_FROM_DIST=0.',
  );
  return () => rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}
