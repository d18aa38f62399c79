import { mkdir, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Set by the test run's global setup (test-run-temp.ts): the folder it removes when the run ends. */
export const TEST_RUN_TEMP_ENV = 'AGENT_SPACES_TEST_RUN_TEMP';

/**
 * A fresh folder under the repository's `.tmp/` (git-ignored). Spaces made there resolve packages
 * (zod, the SDK) from the project's node_modules, as a user's space resolves its own. Under vitest it
 * is inside the run's own folder, removed when the run ends; elsewhere (benchmarks) the caller removes it.
 */
export async function makeTempDir(prefix: string): Promise<string> {
  const parent = process.env[TEST_RUN_TEMP_ENV] ?? path.join(REPO, '.tmp');
  await mkdir(parent, { recursive: true });
  return mkdtemp(path.join(parent, `${prefix}-`));
}
