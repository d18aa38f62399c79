// A 2025-11-25 MCP server over stdio written by hand (no SDK), so it can answer what the SDK's own server
// refuses to send: results whose structuredContent breaks the tool's declared output schema, and results
// that are not a CallToolResult at all. Run: node raw-results-server.mjs
/* global process */
import { createInterface } from 'node:readline';

const count = {
  name: 'count',
  description: 'Counts (its structuredContent breaks its output schema).',
  inputSchema: { type: 'object', properties: {} },
  outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
};
const lookup = { ...count, name: 'lookup', description: 'Looks up (read-only; breaks its output schema).', annotations: { readOnlyHint: true } };
const good = { ...count, name: 'good', description: 'Answers as it declares.' };
const noContent = { name: 'no-content', description: 'Answers without a content array.', inputSchema: { type: 'object', properties: {} } };
const listed = { ...noContent, name: 'listed', description: 'Answers with a list as structuredContent (2025: an object).' };
const tasky = { ...noContent, name: 'tasky', description: 'Answers with a task and no content (another result family).' };

const results = {
  count: { content: [{ type: 'text', text: '{"n":"seven"}' }], structuredContent: { n: 'seven' } },
  lookup: { content: [{ type: 'text', text: '{}' }], structuredContent: {} },
  good: { content: [{ type: 'text', text: '{"n":7}' }], structuredContent: { n: 7 } },
  'no-content': { content: 'not a list', isError: 'no' },
  listed: { content: [{ type: 'text', text: '[1,2]' }], structuredContent: [1, 2] },
  tasky: { task: { taskId: 't-1', status: 'working' } },
};

const write = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return; // notifications
  if (request.method === 'initialize') {
    write({ id: request.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'raw-results', version: '1.0.0' } } });
  } else if (request.method === 'tools/list') {
    write({ id: request.id, result: { tools: [count, lookup, good, noContent, listed, tasky] } });
  } else if (request.method === 'tools/call') {
    write({ id: request.id, result: results[request.params.name] });
  } else {
    write({ id: request.id, error: { code: -32601, message: `no method ${request.method}` } });
  }
});
