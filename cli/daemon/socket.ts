/**
 * Where the CLI's daemon listens (`agent-spaces daemon start`, issue 30 "where a person waits"): a Unix
 * socket in a folder of the user's own (0700, owned by them, not a link), named after everything a warm
 * process must share with the command that uses it — the Node binary and version, the installed
 * package and its build, the user, and the environment Node reads as it starts. A command whose answer
 * differs finds no socket under its name and runs as it always does; nothing is ever asked of a daemon
 * of another build, another Node or another user.
 *
 * Small on purpose: the bin imports it on every `run` of the installed package.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The environment Node (or a process already started) reads at its start: a warm process has used the
 * daemon's values. Not Node's compile cache variables: the CLI sets NODE_COMPILE_CACHE itself (Node ≥ 22,
 * cli/compile-cache.ts), and where compiled code is cached changes nothing a command does.
 */
export const STARTUP_ENV = ['NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'UV_THREADPOOL_SIZE', 'TZ', 'TMPDIR'] as const;

/** The user's daemon folder: `$XDG_RUNTIME_DIR/agent-spaces`, else `<tmp>/agent-spaces-<uid>`. */
export function daemonFolder(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  if (runtime !== undefined && runtime !== '' && path.isAbsolute(runtime)) return path.join(runtime, 'agent-spaces');
  return path.join(os.tmpdir(), `agent-spaces-${process.getuid?.() ?? 'user'}`);
}

/** Why `folder` may not hold the user's socket (undefined: it may): another owner, open to others, a link. */
export function folderProblem(folder: string): string | undefined {
  let stat;
  try {
    stat = lstatSync(folder);
  } catch {
    return `${folder} does not exist`;
  }
  if (stat.isSymbolicLink()) return `${folder} is a symbolic link`;
  if (!stat.isDirectory()) return `${folder} is not a folder`;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return `${folder} belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o077) !== 0) return `${folder} is open to other users (mode ${(stat.mode & 0o777).toString(8)}; it must be 700)`;
  return ancestorProblem(path.dirname(folder), uid);
}

/**
 * Why a folder above the user's could let another user swap it (rename it away and put one of theirs in
 * its place between a check and a connect): one that belongs to another user (not root), or that others
 * may write to without the sticky bit (/tmp has it: only an entry's owner may rename it).
 */
function ancestorProblem(start: string, uid: number | undefined): string | undefined {
  for (let folder = start; ; folder = path.dirname(folder)) {
    let stat;
    try {
      stat = statSync(folder);
    } catch {
      return `${folder} cannot be read`;
    }
    if (uid !== undefined && stat.uid !== uid && stat.uid !== 0)
      return `${folder}, above the daemon's folder, belongs to another user (uid ${stat.uid}), who could replace it`;
    if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0)
      return `${folder}, above the daemon's folder, is open to other users without the sticky bit (mode ${(stat.mode & 0o777).toString(8)}), who could replace it`;
    if (path.dirname(folder) === folder) return undefined;
  }
}

/** Makes the user's folder (0700) when it is missing; the problem with it if it cannot hold the socket. */
export function ensureDaemonFolder(folder: string): string | undefined {
  if (!existsSync(folder)) {
    try {
      mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return `cannot make ${folder}: ${(error as Error).message}`;
    }
  }
  return folderProblem(folder);
}

/** The build a daemon of the package in `root` answers for: the bundle's entry (or dist's, without a bundle). */
export function buildFile(root: string): string {
  const bundled = path.join(root, 'dist', 'cli', 'bundle', 'main.js');
  return existsSync(bundled) ? bundled : path.join(root, 'dist', 'cli', 'main.js');
}

/** What names this Node, this build of the package in `root`, this user and Node's start-up environment. */
export function daemonIdentity(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = buildFile(root);
  const build = statSync(file);
  const parts = [
    process.execPath,
    process.version,
    // The build's own path: the bin may see the package through a link, the daemon's modules see their real paths.
    realpathSync(file),
    `${build.size}:${build.mtimeMs}:${build.ino}`,
    String(process.getuid?.() ?? ''),
    ...STARTUP_ENV.map((name) => `${name}=${env[name] ?? '\0'}`),
  ];
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 20);
}

/** The socket a daemon of this identity listens on. */
export function daemonSocket(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(daemonFolder(env), `${daemonIdentity(root, env)}.sock`);
}

/**
 * The socket the bin may use for a command, or undefined: none listening under this identity, a folder
 * that is not safely the user's own, a platform without Unix sockets, or $AGENT_SPACES_DAEMON=off.
 */
export function usableDaemonSocket(root: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform === 'win32' || env['AGENT_SPACES_DAEMON'] === 'off') return undefined;
  const folder = daemonFolder(env);
  if (!existsSync(folder) || folderProblem(folder) !== undefined) return undefined;
  try {
    const socket = path.join(folder, `${daemonIdentity(root, env)}.sock`);
    return existsSync(socket) ? socket : undefined;
  } catch {
    return undefined;
  }
}
