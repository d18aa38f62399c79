import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

export interface WriteFileAtomicOptions {
  /** Create the target's folder when missing (default true). */
  makeDirectory?: boolean;
  /** Flush the data to the disk before the rename, so a crash leaves the old or the new file (default false). */
  sync?: boolean;
}

/**
 * Writes beside the target (a hidden, unique temporary name in the same folder) and renames it over
 * the target: readers see the old file or the new one, never half of one, and a failure leaves the
 * old file and no temporary behind.
 */
export async function writeFileAtomic(target: string, content: string | Uint8Array, options: WriteFileAtomicOptions = {}): Promise<void> {
  if (options.makeDirectory !== false) await mkdir(path.dirname(target), { recursive: true });
  const temporary = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    // 'wx': never follow or reuse something already at the temporary name.
    const handle = await open(temporary, 'wx');
    try {
      await handle.writeFile(content);
      if (options.sync === true) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
