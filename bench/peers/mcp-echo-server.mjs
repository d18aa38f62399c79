// A tiny stdio MCP server for W4: `echo` answers at once, `work` takes `ms` milliseconds (a tool doing
// work). Every system talks to this same script, run by the repo's Node. Run: node bench/peers/mcp-echo-server.mjs
/* global setTimeout */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
server.registerTool('echo', { description: 'Echo the text back.', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));
server.registerTool('work', { description: 'Take `ms` milliseconds, then answer.', inputSchema: { ms: z.number() } }, async ({ ms }) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { content: [{ type: 'text', text: `worked ${ms} ms` }] };
});
await server.connect(new StdioServerTransport());
