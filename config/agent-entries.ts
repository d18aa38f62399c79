import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether an entry of the config's `agents` is a remote A2A agent (an http or https URL); else it is a directory. */
export function isRemoteAgent(entry: string): boolean {
  return /^https?:\/\//i.test(entry);
}

/** An `agents` entry as the space uses it: a URL as given, a directory as an absolute path (a `file://` URL too). */
export function resolveAgentEntry(entry: string, root: string): string {
  if (isRemoteAgent(entry)) return entry;
  return entry.startsWith('file://') ? fileURLToPath(entry) : path.resolve(root, entry);
}
