import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { ToolCallError } from '../core/index.js';
import type { CallTarget } from './workspace-path.js';

/** What an entry is, in words for messages. */
export type FileKind =
  'file' | 'folder' | 'symbolic link' | 'FIFO (named pipe)' | 'socket' | 'character device' | 'block device' | 'special file';

export function kindOf(stats: Stats): FileKind {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'folder';
  if (stats.isSymbolicLink()) return 'symbolic link';
  if (stats.isFIFO()) return 'FIFO (named pipe)';
  if (stats.isSocket()) return 'socket';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  return 'special file';
}

/** FIFOs, sockets and devices: opening one may block the host forever or never reach an end. */
export function isSpecial(stats: Stats): boolean {
  return !stats.isFile() && !stats.isDirectory() && !stats.isSymbolicLink();
}

export function specialFileError(userPath: string, kind: string, target: CallTarget): ToolCallError {
  return new ToolCallError(
    'FORBIDDEN',
    `"${userPath}" is a ${kind}: std fs only works on regular files and folders (FIFOs, sockets and devices are refused); use a regular file`,
    target,
    { details: { path: userPath, kind } },
  );
}

/** Throws `FORBIDDEN` when the entry is a FIFO, socket or device. */
export function refuseSpecial(stats: Stats, userPath: string, target: CallTarget): void {
  if (isSpecial(stats)) throw specialFileError(userPath, kindOf(stats), target);
}

// Absent on Windows, where FIFOs and device files cannot appear in a folder anyway.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * Opens a regular file and proves it is one on the opened handle (fstat), so a FIFO or device swapped
 * in after an earlier check is still refused. O_NONBLOCK keeps the open itself from waiting for the
 * other end of a FIFO; O_NOFOLLOW refuses a symlink swapped in for the (already resolved) path.
 */
export async function openRegularFile(
  file: string,
  flags: number,
  userPath: string,
  target: CallTarget,
): Promise<{ handle: FileHandle; stats: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(file, flags | NONBLOCK | NOFOLLOW, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENXIO: a FIFO opened for writing with no reader. ELOOP: the path became a symlink after it was resolved.
    if (code === 'ENXIO') throw specialFileError(userPath, 'FIFO (named pipe)', target);
    if (code === 'ELOOP') {
      throw new ToolCallError('FORBIDDEN', `"${userPath}" changed into a symbolic link while it was being opened: try again`, target, {
        details: { path: userPath },
        cause: error,
      });
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (isSpecial(stats)) throw specialFileError(userPath, kindOf(stats), target);
    if (stats.isDirectory()) {
      throw new ToolCallError('INVALID_ARGUMENTS', `"${userPath}" is a folder, not a file: use fs.list to see its entries`, target, {
        details: { path: userPath },
      });
    }
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Reads from `position` until the end of the file or `limit` bytes, never buffering more than
 * `limit + 1` bytes; `more` says whether the file goes on past the limit.
 */
export async function readUpTo(handle: FileHandle, position: number, limit: number): Promise<{ data: Buffer; more: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= limit) {
    const wanted = Math.min(CHUNK_BYTES, limit + 1 - total);
    const buffer = Buffer.allocUnsafe(wanted);
    const { bytesRead } = await handle.read(buffer, 0, wanted, position + total);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
  }
  return { data: Buffer.concat(chunks, Math.min(total, limit)), more: total > limit };
}
