// The library's own code files, read as text by the tests that check which names appear where
// (runtime/engine-names.test.ts, test/source-kinds.test.ts).
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every non-test, non-declaration TypeScript file below `dir`, skipping folders and files named in `skipped`. */
export function codeFiles(dir: string, skipped: ReadonlySet<string>): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return codeFiles(full, skipped);
    return /\.(?:ts|tsx|mts)$/.test(entry.name) && !/\.(?:test|d)\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** The text without its comments (block comments, and `//` comments not inside a URL or a string's start). */
export function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
}
