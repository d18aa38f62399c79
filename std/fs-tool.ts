import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, opendir, realpath, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { ToolCallError, defineFunction, defineTool, errorMessage, writeFileAtomic } from '../core/index.js';
import type { ToolCallContext } from '../core/index.js';
import { openRegularFile, readUpTo, refuseSpecial } from './special-files.js';
import { createRunConcurrency } from './run-concurrency.js';
import { DEFAULT_STD_LIMITS, MAX_HEAVY_CALLS_PER_RUN, formatBytes } from './std-limits.js';
import { resolveInWorkspace, workspaceRelative, type CallTarget } from './workspace-path.js';
import { createWriteQuota } from './write-quota.js';

export interface FsToolOptions {
  /** The workspace folder; every path is relative to it and confined to it. */
  root: string;
  /** Bytes one run may write with writeFile and appendFile, in all (config `std.fs.maxWriteBytesPerRun`). Default 64 MiB. */
  maxWriteBytesPerRun?: number;
  /** Most bytes one read returns: the bridge's result cap. Default 1 MiB. */
  maxResultBytes?: number;
}

const path = z.string().min(1).max(4096).describe('A path relative to the workspace folder, e.g. "data/report.csv".');
const encoding = z.enum(['utf8', 'base64']).default('utf8').describe('"utf8" for text (default), "base64" for binary content.');
const entryType = z.enum(['file', 'directory', 'symlink', 'other']);
const entry = z.object({ name: z.string(), path: z.string(), type: entryType, size: z.number() });

/** Most entries `list` returns with `recursive: true`, so one call cannot walk a whole disk. */
const MAX_LIST_ENTRIES = 10_000;

/**
 * `fs`: files of the workspace folder. Every path is confined to it: absolute paths elsewhere, `..`
 * escapes and symlinks pointing outside are refused with `FORBIDDEN`, and so are FIFOs, sockets and
 * devices. Reads are sized before reading and capped; writes are atomic and count against a per-run
 * quota; `remove` requires approval.
 */
export function createFsTool(options: FsToolOptions) {
  const workspace = new FsWorkspace(resolve(options.root));
  const maxReadBytes = options.maxResultBytes ?? DEFAULT_STD_LIMITS.maxResultBytes;
  const quota = createWriteQuota({ maxBytesPerRun: options.maxWriteBytesPerRun ?? DEFAULT_STD_LIMITS.maxWriteBytesPerRun });
  return defineTool({
    name: 'fs',
    description: `Read and write files in the workspace folder (paths are relative to it; nothing outside is reachable).`,
    functions: {
      readFile: readFileFunction(workspace, maxReadBytes),
      writeFile: writeFileFunction(workspace, quota),
      appendFile: appendFileFunction(workspace, quota),
      list: listFunction(workspace),
      exists: existsFunction(workspace),
      stat: statFunction(workspace),
      mkdir: mkdirFunction(workspace),
      remove: removeFunction(workspace),
    },
  });
}

type WriteQuota = ReturnType<typeof createWriteQuota>;

/** The workspace folder the fs functions share: paths confined to it, and what is at a path. */
class FsWorkspace {
  constructor(readonly root: string) {}

  /** The absolute path of `userPath`, confined to the workspace (`FORBIDDEN` otherwise). */
  inside(userPath: string, context: ToolCallContext): Promise<string> {
    return resolveInWorkspace(this.root, userPath, targetOf(context));
  }

  /** `absolute` as a workspace-relative path, as the functions return it. */
  async relativeOf(absolute: string): Promise<string> {
    return workspaceRelative(await realpath(this.root), absolute);
  }

  /** The entry itself (not followed), or `undefined` when nothing is there; FIFOs, sockets and devices are refused. */
  async existing(absolute: string, userPath: string, context: ToolCallContext): Promise<Stats | undefined> {
    const stats = await lstat(absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw error;
    });
    if (stats !== undefined) refuseSpecial(stats, userPath, targetOf(context));
    return stats;
  }
}

function readFileFunction(workspace: FsWorkspace, maxReadBytes: number) {
  const reads = createRunConcurrency(MAX_HEAVY_CALLS_PER_RUN);
  return defineFunction({
    description: `Reads a file and returns its content as text (or base64 with encoding "base64"). Refuses files larger than maxBytes (at most ${formatBytes(maxReadBytes)}); read a bigger file in parts with offset and length (utf8 text may split a character at a part's edge; base64 is exact).`,
    parameters: z.object({
      path,
      encoding,
      maxBytes: z
        .number()
        .int()
        .positive()
        .max(maxReadBytes)
        .default(maxReadBytes)
        .describe(`Largest file accepted, in bytes (at most ${maxReadBytes}).`),
      offset: z.number().int().min(0).optional().describe('Read from this byte on (a partial read).'),
      length: z
        .number()
        .int()
        .positive()
        .max(maxReadBytes)
        .optional()
        .describe('Read at most this many bytes (a partial read; default maxBytes).'),
    }),
    returns: z.string(),
    handler: async (params, context) =>
      guard(context, params.path, () =>
        reads.run(context, async () => {
          const file = await workspace.inside(params.path, context);
          // Checked before opening (a device is never opened) and again on the opened handle (a FIFO swapped in meanwhile).
          await workspace.existing(file, params.path, context);
          const { handle, stats } = await openRegularFile(file, constants.O_RDONLY, params.path, targetOf(context));
          try {
            const cap = Math.min(params.maxBytes, maxReadBytes);
            if (params.offset !== undefined || params.length !== undefined) {
              const limit = Math.min(params.length ?? cap, cap);
              return (await readUpTo(handle, params.offset ?? 0, limit)).data.toString(params.encoding);
            }
            if (stats.size > cap) throw tooLarge(params.path, stats.size, cap, maxReadBytes, context);
            const { data, more } = await readUpTo(handle, 0, cap);
            if (more) throw tooLarge(params.path, undefined, cap, maxReadBytes, context);
            return data.toString(params.encoding);
          } finally {
            await handle.close();
          }
        }),
      ),
  });
}

function writeFileFunction(workspace: FsWorkspace, quota: WriteQuota) {
  return defineFunction({
    description:
      'Writes a file atomically, replacing it if it exists and creating missing folders. Returns the path and the number of bytes written. Counts against the per-run write quota.',
    parameters: z.object({
      path,
      content: z.string().describe('The text to write (base64 when encoding is "base64").'),
      encoding,
    }),
    returns: z.object({ path: z.string(), bytes: z.number() }),
    handler: async (params, context) =>
      guard(context, params.path, async () => {
        const file = await workspace.inside(params.path, context);
        await workspace.existing(file, params.path, context);
        const data = Buffer.from(params.content, params.encoding);
        const release = quota.reserve(context, data.byteLength, params.path);
        try {
          await mkdir(dirname(file), { recursive: true });
          // Readers see the old or the new file, never half of one.
          await writeFileAtomic(file, data, { makeDirectory: false });
        } catch (error) {
          release();
          throw error;
        }
        return { path: await workspace.relativeOf(file), bytes: data.byteLength };
      }),
  });
}

function appendFileFunction(workspace: FsWorkspace, quota: WriteQuota) {
  return defineFunction({
    description:
      'Appends text to a file, creating it (and missing folders) if needed. Returns the path and the number of bytes appended. Counts against the per-run write quota.',
    parameters: z.object({ path, content: z.string().describe('The text to append.') }),
    returns: z.object({ path: z.string(), bytes: z.number() }),
    handler: async (params, context) =>
      guard(context, params.path, async () => {
        const file = await workspace.inside(params.path, context);
        await workspace.existing(file, params.path, context);
        const data = Buffer.from(params.content, 'utf8');
        const release = quota.reserve(context, data.byteLength, params.path);
        try {
          await mkdir(dirname(file), { recursive: true });
          const { handle } = await openRegularFile(
            file,
            constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
            params.path,
            targetOf(context),
          );
          try {
            await handle.writeFile(data);
          } finally {
            await handle.close();
          }
        } catch (error) {
          release();
          throw error;
        }
        return { path: await workspace.relativeOf(file), bytes: data.byteLength };
      }),
  });
}

function listFunction(workspace: FsWorkspace) {
  return defineFunction({
    description: `Lists a folder's entries (name, workspace-relative path, type, size in bytes), sorted by path; recursive walks sub-folders (at most ${MAX_LIST_ENTRIES} entries, symlinks not followed).`,
    parameters: z.object({
      path: path.default('.').describe('The folder, relative to the workspace (default: the workspace itself).'),
      recursive: z.boolean().default(false),
    }),
    returns: z.array(entry),
    handler: async (params, context) =>
      guard(context, params.path, async () => {
        const folder = await workspace.inside(params.path, context);
        const stats = await workspace.existing(folder, params.path, context);
        if (stats === undefined) throw missing(params.path, context);
        if (!stats.isDirectory()) {
          throw new ToolCallError(
            'INVALID_ARGUMENTS',
            `"${params.path}" is a file, not a folder: use fs.stat or fs.readFile for it`,
            targetOf(context),
            { details: { path: params.path } },
          );
        }
        const entries = await listEntries(await realpath(workspace.root), folder, params.recursive);
        return entries.sort((a, b) => a.path.localeCompare(b.path));
      }),
  });
}

/** The entries of `folder` (and of its sub-folders when `recursive`), at most {@link MAX_LIST_ENTRIES}. */
async function listEntries(rootReal: string, folder: string, recursive: boolean): Promise<z.output<typeof entry>[]> {
  const entries: z.output<typeof entry>[] = [];
  const walk = async (current: string): Promise<void> => {
    // Streamed, not readdir(): a folder of millions of names is never held in memory at once.
    for await (const dirent of await opendir(current)) {
      if (entries.length >= MAX_LIST_ENTRIES) break;
      const absolute = join(current, dirent.name);
      const type = dirent.isSymbolicLink() ? 'symlink' : dirent.isDirectory() ? 'directory' : dirent.isFile() ? 'file' : 'other';
      const size = type === 'file' ? (await lstat(absolute)).size : 0;
      entries.push({ name: dirent.name, path: workspaceRelative(rootReal, absolute), type, size });
      if (recursive && type === 'directory') await walk(absolute);
    }
  };
  await walk(folder);
  return entries;
}

function existsFunction(workspace: FsWorkspace) {
  return defineFunction({
    description: 'Whether a file or folder exists in the workspace.',
    parameters: z.object({ path }),
    returns: z.boolean(),
    handler: async (params, context) =>
      guard(context, params.path, async () => {
        const file = await workspace.inside(params.path, context);
        return (await workspace.existing(file, params.path, context)) !== undefined;
      }),
  });
}

function statFunction(workspace: FsWorkspace) {
  return defineFunction({
    description: 'Type, size in bytes and times (ISO 8601) of a file or folder.',
    parameters: z.object({ path }),
    returns: z.object({ path: z.string(), type: entryType, size: z.number(), modifiedAt: z.string(), createdAt: z.string() }),
    handler: async (params, context) =>
      guard(context, params.path, async () => {
        const file = await workspace.inside(params.path, context);
        const stats = await workspace.existing(file, params.path, context);
        if (stats === undefined) throw missing(params.path, context);
        return {
          path: await workspace.relativeOf(file),
          type: stats.isDirectory() ? ('directory' as const) : stats.isFile() ? ('file' as const) : ('other' as const),
          size: stats.size,
          modifiedAt: stats.mtime.toISOString(),
          createdAt: stats.birthtime.toISOString(),
        };
      }),
  });
}

function mkdirFunction(workspace: FsWorkspace) {
  return defineFunction({
    description: 'Creates a folder (and its missing parents). Succeeds if it already exists.',
    parameters: z.object({ path }),
    returns: z.object({ path: z.string() }),
    handler: async (params, context) =>
      guard(context, params.path, async () => {
        const folder = await workspace.inside(params.path, context);
        await workspace.existing(folder, params.path, context);
        await mkdir(folder, { recursive: true });
        return { path: await workspace.relativeOf(folder) };
      }),
  });
}

function removeFunction(workspace: FsWorkspace) {
  return defineFunction({
    description:
      'Deletes a file, or a folder with recursive: true (a symlink itself, never what it points to). Requires approval. Returns whether something was removed.',
    parameters: z.object({ path, recursive: z.boolean().default(false).describe('Also delete a folder and everything in it.') }),
    returns: z.object({ path: z.string(), removed: z.boolean() }),
    requiresApproval: true,
    approvalMessage: (params) => `Delete "${params.path}"${params.recursive === true ? ' and everything in it' : ''} from the workspace?`,
    handler: async (params, context) =>
      guard(context, params.path, async () => {
        // Resolve the parent, not the entry, so a symlink is removed and its target left alone.
        const parent = await workspace.inside(dirname(params.path), context);
        const entryPath = join(parent, basename(params.path));
        if (entryPath === (await realpath(workspace.root)) || basename(params.path) === '..' || basename(params.path) === '.') {
          throw new ToolCallError(
            'FORBIDDEN',
            `path "${params.path}" is refused: the workspace folder itself cannot be removed`,
            targetOf(context),
            {
              details: { path: params.path, root: workspace.root },
            },
          );
        }
        const stats = await workspace.existing(entryPath, params.path, context);
        if (stats === undefined) return { path: await workspace.relativeOf(entryPath), removed: false };
        if (stats.isDirectory() && !params.recursive) {
          throw new ToolCallError(
            'TOOL_FAILED',
            `"${params.path}" is a folder: pass recursive: true to delete it and everything in it`,
            targetOf(context),
          );
        }
        await rm(entryPath, { recursive: params.recursive, force: true });
        return { path: await workspace.relativeOf(entryPath), removed: true };
      }),
  });
}

function targetOf(context: ToolCallContext): CallTarget {
  return { capability: context.capability, function: context.function };
}

function missing(userPath: string, context: ToolCallContext): ToolCallError {
  return new ToolCallError('TOOL_FAILED', missingMessage(userPath), targetOf(context), { details: { path: userPath, errno: 'ENOENT' } });
}

function missingMessage(userPath: string): string {
  return `"${userPath}" does not exist in the workspace: check the path with fs.list`;
}

function tooLarge(userPath: string, size: number | undefined, cap: number, maxReadBytes: number, context: ToolCallContext): ToolCallError {
  const has =
    size === undefined
      ? `grew past ${formatBytes(cap)} while it was read`
      : `has ${formatBytes(size)}${size >= 1024 ? ` (${size} bytes)` : ''}`;
  const advice =
    size !== undefined && size <= maxReadBytes
      ? `raise maxBytes (at most ${maxReadBytes}) or read it in parts with offset and length`
      : `read it in parts with offset and length (at most ${maxReadBytes} bytes each), or read a smaller file`;
  return new ToolCallError('RESULT_TOO_LARGE', `"${userPath}" ${has}, more than maxBytes (${cap}): ${advice}`, targetOf(context), {
    details: { path: userPath, ...(size === undefined ? {} : { size }), maxBytes: cap, maxReadBytes },
  });
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
        ? missingMessage(userPath)
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
