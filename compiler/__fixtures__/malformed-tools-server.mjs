// An MCP server whose tool list breaks the protocol in several ways at once (the SDK's own client
// would reject the whole list): the build must name every bad tool and what is wrong with it.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'malformed', version: '0.0.1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'fine', inputSchema: { type: 'object' } },
    { name: 'no-type', inputSchema: { properties: {} } },
    { name: 'string-schema', inputSchema: 'x' },
    { inputSchema: { type: 'object' } },
  ],
}));
await server.connect(new StdioServerTransport());
