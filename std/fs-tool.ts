import { randomBytes } from 'node:crypto';
import { appendFile, lstat, mkdir, readdir, readFile, realpath, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { ToolCallError, defineFunction, defineTool, errorMessage } from '../core/index.js';
import type { ToolCallContext } from '../core/index.js';
import { resolveInWorkspace, workspaceRelative, type CallTarget } from './workspace-path.js';

export interface FsToolOptions {
  /** The workspace folder; every path is relative to it and confined to it. */
  root: string;
}

const path = z.string().min(1).describe('A path relative to the workspace folder, e.g. "data/report.csv".');
const encoding = z.enum(['utf8', 'base64']).default('utf8').describe('"utf8" for text (default), "base64" for binary content.');
const entryType = z.enum(['file', 'directory', 'symlink', 'other']);
const entry = z.object({ name: z.string(), path: z.string(), type: entryType, size: z.number() });

/** Most entries `list` returns with `recursive: true`, so one call cannot walk a whole disk. */
const MAX_LIST_ENTRIES = 10_000;
/** Default cap of `readFile`: the bridge refuses results past 1 MiB anyway, so read no more than that. */
const DEFAULT_MAX_READ_BYTES = 1024 * 1024;

/**
 * `fs`: files of the workspace folder. Every path is confined to it: absolute paths elsewhere, `..`
 * escapes and symlinks pointing outside are refused with `FORBIDDEN`. Writes are atomic; `remove`
 * requires approval.
 */
export function createFsTool(options: FsToolOptions) {
  const root = resolve(options.root);
  const inside = (userPath: string, context: ToolCallContext) => resolveInWorkspace(root, userPath, targetOf(context));
  const relativeOf = async (absolute: string) => workspaceRelative(await realpath(root), absolute);

  return defineTool({
    name: 'fs',
    description: `Read and write files in the workspace folder (paths are relative to it; nothing outside is reachable).`,
    functions: {
      readFile: defineFunction({
        description: 'Reads a file and returns its content as text (or base64 with encoding "base64"). Refuses files larger than maxBytes.',
        parameters: z.object({
          path,
          encoding,
          maxBytes: z.number().int().positive().max(50 * 1024 * 1024).default(DEFAULT_MAX_READ_BYTES).describe('Largest file accepted, in bytes.'),
        }),
        returns: z.string(),
        handler: async (params, context) =>
          guard(context, params.path, async () => {
            const file = await inside(params.path, context);
            // Checked before reading: a huge file (or a FIFO, which never ends) must not be pulled into host memory.
            const info = await stat(file);
            if (!info.isFile()) throw new ToolCallError('INVALID_ARGUMENTS', `"${params.path}" is not a regular file`, targetOf(context));
            if (info.size > params.maxBytes) {
              throw new ToolCallError('RESULT_TOO_LARGE', `"${params.path}" has ${info.size} bytes, more than maxBytes (${params.maxBytes}): read a smaller file or raise maxBytes`, targetOf(context));
            }
            return readFile(file, params.encoding);
          }),
      }),
      writeFile: defineFunction({
        description: 'Writes a file atomically, replacing it if it exists and creating missing folders. Returns the path and the number of bytes written.',
        parameters: z.object({
          path,
          content: z.string().describe('The text to write (base64 when encoding is "base64").'),
          encoding,
        }),
        returns: z.object({ path: z.string(), bytes: z.number() }),
        handler: async (params, context) =>
          guard(context, params.path, async () => {
            const file = await inside(params.path, context);
            const data = Buffer.from(params.content, params.encoding);
            await mkdir(dirname(file), { recursive: true });
            await writeAtomically(file, data);
            return { path: await relativeOf(file), bytes: data.byteLength };
          }),
      }),
      appendFile: defineFunction({
        description: 'Appends text to a file, creating it (and missing folders) if needed. Returns the path and the number of bytes appended.',
        parameters: z.object({ path, content: z.string().describe('The text to append.') }),
        returns: z.object({ path: z.string(), bytes: z.number() }),
        handler: async (params, context) =>
          guard(context, params.path, async () => {
            const file = await inside(params.path, context);
            await mkdir(dirname(file), { recursive: true });
            await appendFile(file, params.content, 'utf8');
            return { path: await relativeOf(file), bytes: Buffer.byteLength(params.content) };
          }),
      }),
      list: defineFunction({
        description: `Lists a folder's entries (name, workspace-relative path, type, size in bytes), sorted by path; recursive walks sub-folders (at most ${MAX_LIST_ENTRIES} entries, symlinks not followed).`,
        parameters: z.object({
          path: path.default('.').describe('The folder, relative to the workspace (default: the workspace itself).'),
          recursive: z.boolean().default(false),
        }),
        returns: z.array(entry),
        handler: async (params, context) =>
          guard(context, params.path, async () => {
            const folder = await inside(params.path, context);
            const rootReal = await realpath(root);
            const entries: z.output<typeof entry>[] = [];
            const walk = async (current: string): Promise<void> => {
              for (const dirent of await readdir(current, { withFileTypes: true })) {
                if (entries.length >= MAX_LIST_ENTRIES) return;
                const absolute = join(current, dirent.name);
                const type = dirent.isSymbolicLink() ? 'symlink' : dirent.isDirectory() ? 'directory' : dirent.isFile() ? 'file' : 'other';
                const size = type === 'file' ? (await lstat(absolute)).size : 0;
                entries.push({ name: dirent.name, path: workspaceRelative(rootReal, absolute), type, size });
                if (params.recursive && type === 'directory') await walk(absolute);
              }
            };
            await walk(folder);
            return entries.sort((a, b) => a.path.localeCompare(b.path));
          }),
      }),
      exists: defineFunction({
        description: 'Whether a file or folder exists in the workspace.',
        parameters: z.object({ path }),
        returns: z.boolean(),
        handler: async (params, context) => {
          const file = await inside(params.path, context);
          return stat(file).then(
            () => true,
            () => false,
          );
        },
      }),
      stat: defineFunction({
        description: 'Type, size in bytes and times (ISO 8601) of a file or folder.',
        parameters: z.object({ path }),
        returns: z.object({ path: z.string(), type: entryType, size: z.number(), modifiedAt: z.string(), createdAt: z.string() }),
        handler: async (params, context) =>
          guard(context, params.path, async () => {
            const file = await inside(params.path, context);
            const stats = await stat(file);
            return {
              path: await relativeOf(file),
              type: stats.isDirectory() ? ('directory' as const) : stats.isFile() ? ('file' as const) : ('other' as const),
              size: stats.size,
              modifiedAt: stats.mtime.toISOString(),
              createdAt: stats.birthtime.toISOString(),
            };
          }),
      }),
      mkdir: defineFunction({
        description: 'Creates a folder (and its missing parents). Succeeds if it already exists.',
        parameters: z.object({ path }),
        returns: z.object({ path: z.string() }),
        handler: async (params, context) =>
          guard(context, params.path, async () => {
            const folder = await inside(params.path, context);
            await mkdir(folder, { recursive: true });
            return { path: await relativeOf(folder) };
          }),
      }),
      remove: defineFunction({
        description: 'Deletes a file, or a folder with recursive: true (a symlink itself, never what it points to). Requires approval. Returns whether something was removed.',
        parameters: z.object({ path, recursive: z.boolean().default(false).describe('Also delete a folder and everything in it.') }),
        returns: z.object({ path: z.string(), removed: z.boolean() }),
        requiresApproval: true,
        approvalMessage: (params) => `Delete "${params.path}"${params.recursive === true ? ' and everything in it' : ''} from the workspace?`,
        handler: async (params, context) =>
          guard(context, params.path, async () => {
            // Resolve the parent, not the entry, so a symlink is removed and its target left alone.
            const parent = await inside(dirname(params.path), context);
            const entryPath = join(parent, basename(params.path));
            if (entryPath === (await realpath(root)) || basename(params.path) === '..' || basename(params.path) === '.') {
              throw new ToolCallError('FORBIDDEN', `path "${params.path}" is refused: the workspace folder itself cannot be removed`, targetOf(context), {
                details: { path: params.path, root },
              });
            }
            const existing = await lstat(entryPath).catch(() => undefined);
            if (existing === undefined) return { path: await relativeOf(entryPath), removed: false };
            if (existing.isDirectory() && !params.recursive) {
              throw new ToolCallError('TOOL_FAILED', `"${params.path}" is a folder: pass recursive: true to delete it and everything in it`, targetOf(context));
            }
            await rm(entryPath, { recursive: params.recursive, force: true });
            return { path: await relativeOf(entryPath), removed: true };
          }),
      }),
    },
  });
}

function targetOf(context: ToolCallContext): CallTarget {
  return { capability: context.capability, function: context.function };
}

async function writeAtomically(file: string, data: Buffer): Promise<void> {
  // Write beside the target and rename over it: readers see the old or the new file, never half of one.
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, data, { flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** Turns Node's file errors into messages that say what to do. */
async function guard<T>(context: ToolCallContext, userPath: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ToolCallError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? `"${userPath}" does not exist in the workspace: check the path with fs.list`
        : code === 'EISDIR'
          ? `"${userPath}" is a folder, not a file: use fs.list to see its entries`
          : code === 'ENOTDIR'
            ? `"${userPath}" goes through something that is not a folder`
            : code === 'EEXIST'
              ? `"${userPath}" already exists and is not a folder`
              : `${errorMessage(error)} (path "${userPath}")`;
    throw new ToolCallError('TOOL_FAILED', message, targetOf(context), { details: { path: userPath, errno: code }, cause: error });
  }
}
