import { mkdir, mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A fresh folder under the repository's `.tmp/` (git-ignored). Spaces made there resolve packages
 * (zod, the SDK) from the project's node_modules, as a user's space resolves its own.
 */
export async function makeTempDir(prefix: string): Promise<string> {
  await mkdir(path.join(REPO, '.tmp'), { recursive: true });
  return mkdtemp(path.join(REPO, '.tmp', `${prefix}-`));
}
