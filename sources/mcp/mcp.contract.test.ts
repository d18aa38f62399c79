// The MCP source passes the capability source contract, with one server of each protocol era: a
// 2026-07-28 server (SDK v2) over Streamable HTTP and a 2025-11-25 server (SDK v1) over stdio.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { resolveConfig } from '../../config/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { describeSourceContract } from '../source.contract.js';
import { mcpSource } from './mcp-source.js';
// @ts-expect-error -- a plain .mjs fixture (also started as a child process), without declarations
import { createModernHandler } from './__fixtures__/modern-server.mjs';

const legacyScript = fileURLToPath(new URL('./__fixtures__/fixture-server.mjs', import.meta.url));

describeSourceContract('mcp', async () => {
  const root = await makeTempDir('contract-mcp');
  const handler = toNodeHandler(createModernHandler() as Parameters<typeof toNodeHandler>[0]);
  const http = createServer((request, response) => void handler(request, response));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const config = resolveConfig(
    { capabilities: [], mcpServers: { modern: { url }, old: { command: process.execPath, args: [legacyScript] } } },
    { root, env: {} },
  );
  return {
    config,
    source: mcpSource,
    call: { module: 'mcp-modern', function: 'echo', args: { text: 'hi' }, expected: 'hi (modern)', invalidArgs: { text: 5 } },
    failingCall: { module: 'mcp-old', function: 'fail', args: {}, code: 'TOOL_ERROR_RESULT' },
    // The 2025 server's command disappears: its unit fails, its module is kept.
    breakOneUnit: async () => {
      config.mcpServers.old = { command: '/nonexistent/mcp-server' };
      return { label: 'mcp:old' };
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
});
