// A stdio MCP server that counts its own starts: each process appends its pid to the file named by
// $COUNT_FILE when it starts, so a test can count from the server's side how many processes served it.
// `whoami` answers the pid; `act` is a tool a space marks as needing approval.
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

if (process.env.COUNT_FILE) appendFileSync(process.env.COUNT_FILE, `${process.pid}\n`);

const server = new McpServer({ name: 'counting-server', version: '1.0.0' });
server.registerTool('whoami', { description: 'The process id of this server.' }, async () => ({
  content: [{ type: 'text', text: String(process.pid) }],
}));
server.registerTool('act', { description: 'Do something that needs approval.', inputSchema: { what: z.string() } }, async ({ what }) => ({
  content: [{ type: 'text', text: `done: ${what}` }],
}));
await server.connect(new StdioServerTransport());
