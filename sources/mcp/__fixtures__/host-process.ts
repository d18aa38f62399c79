// A host that starts the fixture MCP server through the backend, prints the server's pid, and waits
// in a long call, so a test can interrupt it and check the server does not outlive it.
import { fileURLToPath } from 'node:url';
import { connectMcpServer, listAllTools } from '../connect.js';
import { createMcpBackend } from '../mcp-backend.js';
import { callOf, capabilityFromTools } from '../test-support/mcp-test-calls.js';

const fixture = fileURLToPath(new URL('./fixture-server.mjs', import.meta.url));
const config = { command: process.execPath, args: [fixture], timeoutMs: 120_000 };
const discovery = await connectMcpServer('fixture', config);
const capability = capabilityFromTools('mcp-fixture', 'fixture', await listAllTools(discovery.client));
await discovery.close();

const backend = createMcpBackend({ servers: { 'mcp-fixture': { name: 'fixture', config } } });
const pid = await backend.call(callOf(capability, 'pid'));
process.stdout.write(`${String(pid)}\n`);
await backend.call(callOf(capability, 'sleep', { ms: 60_000 }));
