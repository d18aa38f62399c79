import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverMcpServer } from './discover.js';

// A stdio server that answers `initialize` and then never answers anything (tools/list hangs).
const SILENT_AFTER_INITIALIZE = `
process.stdin.setEncoding('utf8');
let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\\n')) >= 0) {
    const message = JSON.parse(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    if (message.method === 'initialize') {
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'silent', version: '1.0.0' } } }) + '\\n');
    }
  }
});
`;

describe('discoverMcpServer', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'discover-'));
  const script = path.join(folder, 'silent.mjs');
  writeFileSync(script, SILENT_AFTER_INITIALIZE);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('stops waiting for tools/list when the build is aborted (its own timeout is far away)', async () => {
    const controller = new AbortController();
    const discovery = discoverMcpServer(
      'silent',
      { command: process.execPath, args: [script], timeoutMs: 600_000, protocol: '2025-11-25' },
      { signal: controller.signal },
    );
    // Aborted once the request is out: the server is connected (initialize answered) and tools/list waits.
    setImmediate(() => controller.abort(new Error('build cancelled')));
    await expect(discovery).rejects.toThrow(/cancel|abort/i);
  });
});
