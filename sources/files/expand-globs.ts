import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Expands capability patterns relative to `root`: plain paths, `*` within a path segment and `**`
 * across folders. Results are absolute, sorted and unique; a plain path that does not exist is
 * returned in `missing`, one that is a folder in `folders`.
 */
export async function expandGlobs(patterns: string[], root: string): Promise<{ files: string[]; missing: string[]; folders: string[] }> {
  const files = new Set<string>();
  const missing: string[] = [];
  const folders: string[] = [];
  for (const pattern of patterns) {
    if (!isGlob(pattern)) {
      const file = path.resolve(root, pattern);
      if (!existsSync(file)) missing.push(pattern);
      else if (statSync(file).isDirectory()) folders.push(pattern);
      else files.add(file);
      continue;
    }
    const normalized = pattern.split(path.sep).join('/');
    const firstWild = normalized.search(/[*?]/);
    const base = normalized.slice(0, normalized.lastIndexOf('/', firstWild) + 1);
    const baseDir = path.resolve(root, base || '.');
    if (!existsSync(baseDir)) continue;
    const matcher = globToRegExp(normalized.slice(base.length));
    const entries = await readdir(baseDir, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      const relative = path.relative(baseDir, full).split(path.sep).join('/');
      if (relative.split('/').some((part) => part === 'node_modules' || part.startsWith('.'))) continue;
      if (matcher.test(relative)) files.add(full);
    }
  }
  return { files: [...files].sort(), missing, folders };
}

/** Whether a capability pattern has wildcards (otherwise it names one file). */
export function isGlob(pattern: string): boolean {
  return /[*?]/.test(pattern);
}

function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] as string;
    if (char === '*' && glob[index + 1] === '*') {
      source += glob[index + 2] === '/' ? '(?:.*/)?' : '.*';
      index += glob[index + 2] === '/' ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
