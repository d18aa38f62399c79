import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { openSpace } from '../../agents/index.js';
import { progress } from '../output.js';
import { UsageError } from '../usage-error.js';
import { port as portNumber } from './agent.js';

export interface StudioCommandOptions {
  cwd: string;
  config?: string;
  port?: string;
  open: boolean;
  /** The durable runs' store (default: the config's `store`, else `$AGENT_SPACES_STORE`). */
  store?: string;
  /** The folder of eval runs the Eval pane lists, relative to `cwd` (default: `.agent-spaces/eval`). */
  evalDir?: string;
  /** Several spaces, `[name=]dir,…` relative to `cwd`: the page's picker chooses one. */
  spaces?: string;
}

/** `agent-spaces studio`: the local web UI over the space until interrupted. */
export async function studioCommand(options: StudioCommandOptions): Promise<number> {
  const port = options.port === undefined ? 0 : portNumber(options.port, '--port');
  const evalDir = options.evalDir === undefined ? undefined : path.resolve(options.cwd, options.evalDir);
  if (evalDir !== undefined && !statSync(evalDir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(
      `--eval-dir ${options.evalDir}: no such folder (${evalDir}); give the folder that holds the eval run folders (each one an "agent-spaces eval --out" folder)`,
    );
  if (options.spaces !== undefined && options.config !== undefined)
    throw new UsageError('--config does not apply with --spaces: each folder of --spaces has its own config');
  const spaces = options.spaces === undefined ? undefined : (await import('./serve-spaces.js')).spaceFolders(options.spaces, options.cwd);
  // The studio's code loads with this command only: importing the package never pays for it.
  const { startStudio } = await import('../../studio/server/index.js');
  const studio = await startStudio({
    openSpace,
    cwd: options.cwd,
    ...(spaces ? { spaces: spaces.map(({ name, dir }) => ({ name, cwd: dir })) } : {}),
    ...(options.config ? { configFile: options.config } : {}),
    port,
    log: progress,
    ...(options.store ? { store: options.store } : {}),
    ...(evalDir ? { evalDir } : {}),
  });
  progress(`studio: open ${studio.url}`);
  progress('  (the address carries the access token: do not share it; Ctrl-C stops the studio)');
  if (options.open) openBrowser(studio.url);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await studio.close();
  return 0;
}

/** Opens the address in the desktop's browser; where there is none, the printed address is enough. */
function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.once('error', () => progress(`studio: could not start "${command}" to open a browser; open the address above yourself`));
  child.unref();
}
