/**
 * Whether the build in dist/ is newer than every file of the checkout (tracked, or new and not
 * ignored): as in CI, where `npm ci` has just built it. Then the build answers for the sources — the
 * packed package need not be built again, and the CLI the tests start runs the build (bin/agent-spaces.js,
 * AGENT_SPACES_FROM_DIST), as an installed package does, instead of the sources through tsx.
 *
 * Also vitest's global setup that makes that choice for the run (its default export): the build when it
 * is fresh, else the sources, so an old build never answers for changed sources; a value of
 * AGENT_SPACES_FROM_DIST already set is kept. Test files run in processes started after it: they inherit it.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The variable bin/agent-spaces.js reads: '1' runs a checkout's dist/ instead of its sources. */
export const FROM_DIST_ENV = 'AGENT_SPACES_FROM_DIST';

export async function distIsFresh(): Promise<boolean> {
  const built = [
    path.join(REPO, 'dist/index.js'),
    path.join(REPO, 'dist/cli/bundle/main.js'),
    path.join(REPO, 'dist/studio-ui/index.html'),
  ];
  if (!built.every((file) => existsSync(file))) return false;
  const builtAt = Math.min(...(await Promise.all(built.map(async (file) => (await stat(file)).mtimeMs))));
  let listed: string;
  try {
    listed = (
      await promisify(execFile)('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
        cwd: REPO,
        maxBuffer: 64 * 1024 * 1024,
      })
    ).stdout;
  } catch {
    return false; // no git here to list the checkout's files: the sources, as always
  }
  const files = listed.split('\0').filter((file) => file !== '' && !file.startsWith('dist/'));
  // A tracked file that is gone (deleted, not yet committed) is a change the build may not have seen.
  const changedAt = await Promise.all(
    files.map(async (file) => (await stat(path.join(REPO, file)).catch(() => undefined))?.mtimeMs ?? Number.POSITIVE_INFINITY),
  );
  return changedAt.every((time) => time < builtAt);
}

export default async function chooseCli(): Promise<void> {
  process.env[FROM_DIST_ENV] ??= (await distIsFresh()) ? '1' : '0';
  console.log(
    process.env[FROM_DIST_ENV] === '1'
      ? 'The CLI the tests start runs the build in dist/ (newer than every file of the checkout).'
      : `The CLI the tests start runs the sources (through tsx): dist/ is older than a file of the checkout, or ${FROM_DIST_ENV}=0.`,
  );
}
