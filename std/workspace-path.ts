import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolCallError } from '../core/index.js';

export interface CallTarget {
  capability: string;
  function: string;
}

/**
 * Resolves a path the model gave against the workspace root and refuses anything that ends up
 * outside it: absolute paths elsewhere, `..` escapes, and symlinks (anywhere along the path) that
 * point outside. Returns the real absolute path to use.
 *
 * The check and the later file operation are two steps, so a process racing to swap in a symlink
 * between them could still escape; the model's own code cannot, since it only reaches the disk
 * through these functions.
 */
export async function resolveInWorkspace(root: string, userPath: string, target: CallTarget): Promise<string> {
  if (userPath.includes('\0')) {
    // Node would refuse it too, but with a message quoting the absolute host path.
    throw new ToolCallError(
      'INVALID_ARGUMENTS',
      `path ${JSON.stringify(userPath)} is refused: it contains a NUL character; file names cannot contain one`,
      target,
      {
        details: { path: userPath },
      },
    );
  }
  const rootReal = await realpath(resolve(root)).catch((error: unknown) => {
    throw new ToolCallError(
      'TOOL_FAILED',
      `the workspace folder ${root} does not exist: create it or set std.fs.root in the config`,
      target,
      { cause: error },
    );
  });
  const requested = isAbsolute(userPath) ? resolve(userPath) : resolve(rootReal, userPath);
  const lexicallyInside = isInside(rootReal, requested) || isInside(resolve(root), requested);
  if (!lexicallyInside) throw forbidden(userPath, root, target);

  const real = await realpathOfLongestExisting(
    isInside(rootReal, requested) ? requested : join(rootReal, relative(resolve(root), requested)),
  );
  if (!isInside(rootReal, real))
    throw forbidden(userPath, root, target, 'it resolves through a symbolic link to a place outside the workspace');
  return real;
}

/** The workspace-relative form of an absolute path inside it (`.` for the root), with `/` separators. */
export function workspaceRelative(rootReal: string, absolute: string): string {
  const path = relative(rootReal, absolute);
  return path === '' ? '.' : path.split(sep).join('/');
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  // `..notes.txt` is a name inside; only `..` itself or `../…` leaves.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * realpath of the deepest existing ancestor, with the not-yet-existing rest appended. A dangling
 * symlink counts as pointing where it says, so writing through it cannot escape either.
 */
async function realpathOfLongestExisting(path: string, depth = 0): Promise<string> {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(existing), ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const link = await lstat(existing).then(
        (stats) => stats.isSymbolicLink(),
        () => false,
      );
      if (link && depth < 40) {
        const pointed = resolve(dirname(existing), await readlink(existing));
        return join(await realpathOfLongestExisting(pointed, depth + 1), ...rest.reverse());
      }
      const parent = dirname(existing);
      if (parent === existing) return path;
      rest.push(existing.slice(parent.length).replace(/^[\\/]/, ''));
      existing = parent;
    }
  }
}

function forbidden(userPath: string, root: string, target: CallTarget, why = 'it is outside the workspace'): ToolCallError {
  return new ToolCallError(
    'FORBIDDEN',
    `path "${userPath}" is refused: ${why} (${root}). fs functions only reach files inside the workspace folder; use a relative path such as "data/file.txt"`,
    target,
    { details: { path: userPath, root } },
  );
}
