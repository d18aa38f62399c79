import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from './temp-dir.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A copy of the example space's config in a fresh folder: the repository's capabilities and stations
 * server, but its own build output, workspace and notes file, so tests never share state.
 */
export async function makeExampleSpace(
  prefix = 'space',
  extra: Record<string, unknown> = {},
): Promise<{ root: string; env: Record<string, string> }> {
  const root = await makeTempDir(prefix);
  const relative = path.relative(root, REPO).split(path.sep).join('/');
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify(
      {
        capabilities: [`${relative}/capabilities/*.ts`, `${relative}/capabilities/*.json`],
        mcpServers: {
          stations: {
            command: process.execPath,
            args: ['--import', 'tsx', path.join(REPO, 'examples/mcp-server/stations-server.ts')],
            cwd: REPO,
            approveDestructive: true,
          },
        },
        std: { fs: { root: 'workspace' } },
        ...extra,
      },
      null,
      2,
    ),
  );
  return { root, env: { AGENT_SPACES_NOTES_FILE: path.join(root, 'notes.json') } };
}
