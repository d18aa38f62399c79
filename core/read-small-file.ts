import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

// Absent on Windows, where FIFOs and device files cannot appear in a folder anyway.
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * The text of a host-written file that something else may have replaced (a store beside the build):
 * `undefined` unless it is a regular file — not a symlink, FIFO or device, checked on the opened handle —
 * of at most `maxBytes`. Never waits for the other end of a FIFO, never reads past the cap.
 */
export async function readSmallFile(file: string, maxBytes: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | NONBLOCK | NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const buffer = Buffer.alloc(info.size + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    // Grown since the stat: over the cap after all.
    return bytesRead > info.size ? undefined : buffer.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
}
