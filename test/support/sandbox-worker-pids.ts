import { readdir, readFile } from 'node:fs/promises';

/** Sandbox worker processes that are children of this process (Linux /proc). */
export async function sandboxWorkerPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === process.pid && (await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes('sandbox-worker')) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}
