// A stdio MCP server whose tools answer with JSON as text and declare no outputSchema, as most
// published servers do: the counterpart of the inferred-result-types tests (test/e2e/inferred-results.test.ts).
// `listProducts` is read-only (annotation), `deleteProduct` destructive, `getStatus` says nothing.
// Run: node test/e2e/__fixtures__/json-text-server.mjs
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'json-text-server', version: '1.0.0' });
const text = (value) => ({ content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }] });

server.registerTool(
  'list_products',
  {
    description: 'Products of a category, as JSON text.',
    inputSchema: { category: z.string().optional(), shape: z.enum(['usual', 'drifted', 'prose']).optional() },
    annotations: { readOnlyHint: true },
  },
  async ({ category, shape }) => {
    if (shape === 'prose') return text('The catalogue is being rebuilt; try again later.');
    if (shape === 'drifted') return text({ items: [{ name: 'saw', price: 12, stock: 0, discontinued: true }], total: 'unknown' });
    const items = [
      { name: 'hammer', price: 9.5, stock: 3 },
      { name: 'drill', price: 79, stock: 1 },
    ];
    return text({ category: category ?? 'all', items, total: items.length });
  },
);

server.registerTool(
  'delete_product',
  { description: 'Delete a product.', inputSchema: { name: z.string() }, annotations: { destructiveHint: true, readOnlyHint: false } },
  async ({ name }) => text({ deleted: name, remaining: 1 }),
);

server.registerTool('get_status', { description: 'Service status, as JSON text.' }, async () => text({ ok: true, uptimeSeconds: 42 }));

await server.connect(new StdioServerTransport());
