// An MCP server whose tools/list is well-formed but holds schemas ajv cannot compile: a $ref to a
// definition that does not exist, a pattern that is not a regular expression, a type that does not
// exist. The build must fail this server with the reasons, never a call at run time.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'uncompilable', version: '0.0.1' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'fine', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    { name: 'dangling-ref', inputSchema: { type: 'object', properties: { path: { $ref: '#/$defs/path' } } } },
    { name: 'bad-pattern', inputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '([a-z' } } } },
    { name: 'bad-output', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'integr' } } } },
  ],
}));
await server.connect(new StdioServerTransport());
