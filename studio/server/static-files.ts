import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';

/** Where `npm run build:studio` puts the UI: `dist/studio-ui/` of the package. */
export function defaultUiDir(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.resolve('agent-spaces/package.json'))), 'dist', 'studio-ui');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

// The page loads only its own files; styles may be inline because CodeMirror injects its theme as
// <style> elements. No frames may embed it (clickjacking an Approve button).
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Whether the built UI is there (the studio says how to build it when not). */
export async function hasUi(uiDir: string): Promise<boolean> {
  return stat(path.join(uiDir, 'index.html')).then(
    (info) => info.isFile(),
    () => false,
  );
}

/**
 * Answers a GET for a file of the built UI; any path that is not a file (the SPA's own routes) gets
 * `index.html`. Paths are resolved inside `uiDir` and never leave it.
 */
export async function serveUiFile(uiDir: string, pathname: string, response: ServerResponse): Promise<void> {
  const root = path.resolve(uiDir);
  let file = path.resolve(root, `.${decodeURIComponent(pathname)}`);
  if (!file.startsWith(root + path.sep) || !(await isFile(file))) file = path.join(root, 'index.html');
  const body = await readFile(file);
  response.writeHead(200, {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'content-length': body.byteLength,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-store',
  });
  response.end(body);
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}
