// A small stdio MCP server that the example space uses, so the default build needs no network.
// Run: node --import tsx examples/mcp-server/stations-server.ts
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const STATIONS = [
  { name: 'Central', lines: ['IC', 'RE', 'S'], accessible: true, facilities: ['tickets', 'cafe', 'lockers'] },
  { name: 'Harbor', lines: ['IC', 'S'], accessible: true, facilities: ['tickets'] },
  { name: 'Airport', lines: ['RE'], accessible: true, facilities: ['tickets', 'cafe'] },
  { name: 'Museum', lines: ['IC', 'S'], accessible: false, facilities: [] },
  { name: 'Old Town', lines: ['S'], accessible: false, facilities: ['cafe'] },
  { name: 'Northgate', lines: ['IC'], accessible: true, facilities: ['tickets'] },
];

const server = new McpServer({ name: 'stations', version: '1.0.0' });

server.registerTool(
  'station-info',
  {
    description: 'Facts about one station: lines served, step-free access, facilities',
    inputSchema: { name: z.string().describe('Station name, e.g. "Harbor"') },
    outputSchema: { name: z.string(), lines: z.array(z.string()), accessible: z.boolean(), facilities: z.array(z.string()) },
    annotations: { readOnlyHint: true },
  },
  async ({ name }) => {
    const station = STATIONS.find((s) => s.name.toLowerCase() === name.toLowerCase());
    if (!station) return { isError: true, content: [{ type: 'text', text: `unknown station "${name}"` }] };
    return { content: [{ type: 'text', text: JSON.stringify(station) }], structuredContent: station };
  },
);

server.registerTool(
  'list-stations',
  { description: 'Names of all stations, one per line', inputSchema: {}, annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: 'text', text: STATIONS.map((s) => s.name).join('\n') }] }),
);

server.registerTool(
  'report_delay',
  {
    description: 'Report a delay at a station (changes the public board)',
    inputSchema: { station: z.string(), minutes: z.number().int().positive() },
    annotations: { destructiveHint: true },
  },
  async ({ station, minutes }) => ({ content: [{ type: 'text', text: `Delay of ${minutes} min reported at ${station}.` }] }),
);

await server.connect(new StdioServerTransport());
