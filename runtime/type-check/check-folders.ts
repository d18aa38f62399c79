/**
 * The native check's folders under the temporary folder: `agent-spaces-check-<pid>-t<thread>-XXXXXX`, named
 * by the process and the check thread that made them. Kept apart from native-check.ts so that the check
 * pool (on the host's thread) can remove a stopped thread's folders without loading TypeScript.
 */
import { readdirSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const FOLDER_PREFIX = 'agent-spaces-check-';

/** The start of the names of the folders that thread `threadId` of this process makes. */
export function threadFolderPrefix(threadId: number): string {
  return `${FOLDER_PREFIX}${process.pid}-t${threadId}-`;
}

/**
 * Removes the folders of check thread `threadId` of this process, once it has stopped: a thread stopped at
 * its time limit after it made its folder and before its compiler ran leaves one nothing else would
 * remove while this process runs.
 */
export function removeThreadFolders(threadId: number, tmp: string = os.tmpdir()): void {
  const prefix = threadFolderPrefix(threadId);
  let names: string[];
  try {
    names = readdirSync(tmp).filter((name) => name.startsWith(prefix));
  } catch {
    return;
  }
  for (const name of names) rmSync(path.join(tmp, name), { recursive: true, force: true });
}

/**
 * Kills the compilers still running in a folder of check thread `threadId` of this process, once it has
 * stopped (Linux: a process's working folder under `/proc`; elsewhere nothing). The thread names its
 * compiler to the pool as soon as it started it, but a thread terminated between the two — or whose
 * message came after the pool stopped listening — left it running to its end (seen under load).
 */
export function killThreadCompilers(threadId: number, tmp: string = os.tmpdir()): void {
  const prefix = path.join(tmp, threadFolderPrefix(threadId));
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(prefix)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // ended meanwhile, or another user's
    }
  }
}
