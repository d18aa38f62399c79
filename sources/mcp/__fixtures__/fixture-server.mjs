// A stdio MCP server with one tool per behaviour the MCP backend must handle: plain answers,
// structured content, images, error results, hangs (with and without progress), a crash, garbage on
// stdout, and a question to the user (elicitation, 2025 era). Run: node sources/mcp/__fixtures__/fixture-server.mjs
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'fixture-server', version: '1.0.0' });
let cancelledCount = 0;
let sleepingCount = 0;

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

server.registerTool('echo', { description: 'Echo the text back.', inputSchema: { text: z.string() } }, async ({ text }) => ({
  content: [{ type: 'text', text }],
}));

server.registerTool(
  'add',
  {
    description: 'Add two numbers.',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  },
  async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }], structuredContent: { sum: a + b } }),
);

server.registerTool('picture', { description: 'A tiny image and a caption.' }, async () => ({
  content: [
    { type: 'text', text: 'a red pixel' },
    { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  ],
}));

server.registerTool('fail', { description: 'Always returns an error result.' }, async () => ({
  isError: true,
  content: [{ type: 'text', text: 'the widget is broken' }],
}));

server.registerTool('pid', { description: 'The process id of this server.' }, async () => ({
  content: [{ type: 'text', text: String(process.pid) }],
}));

server.registerTool('environment', { description: 'An environment variable and the working directory.', inputSchema: { name: z.string() } }, async ({ name }) => ({
  content: [{ type: 'text', text: JSON.stringify({ value: process.env[name] ?? null, cwd: process.cwd() }) }],
}));

server.registerTool(
  'sleep',
  {
    description: 'Wait, optionally sending progress notifications.',
    inputSchema: { ms: z.number(), progressEveryMs: z.number().optional() },
  },
  async ({ ms, progressEveryMs }, extra) => {
    const token = extra._meta?.progressToken;
    const started = Date.now();
    sleepingCount += 1;
    let step = 0;
    if (progressEveryMs !== undefined && token !== undefined) {
      while (Date.now() - started < ms && !extra.signal.aborted) {
        await sleep(Math.min(progressEveryMs, ms - (Date.now() - started)), extra.signal);
        step += 1;
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, message: `step ${step}` } });
      }
    } else {
      await sleep(ms, extra.signal);
    }
    sleepingCount -= 1;
    if (extra.signal.aborted) {
      cancelledCount += 1;
      process.stderr.write('sleep was cancelled\n');
    }
    return { content: [{ type: 'text', text: `slept ${Date.now() - started} ms` }] };
  },
);

server.registerTool('sleeping-count', { description: 'How many sleep calls are running now.' }, async () => ({
  content: [{ type: 'text', text: String(sleepingCount) }],
}));

server.registerTool('cancelled-count', { description: 'How many calls this server saw cancelled.' }, async () => ({
  content: [{ type: 'text', text: String(cancelledCount) }],
}));

server.registerTool('crash', { description: 'Exit the process in the middle of the call.' }, async () => {
  process.stderr.write('fixture: crashing on purpose\n');
  process.exit(1);
});

server.registerTool('confirm', { description: 'Ask the user to confirm (elicitation/create), then say what they answered.', inputSchema: { action: z.string() } }, async ({ action }) => {
  const answer = await server.server.elicitInput({
    message: `Really ${action}?`,
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  });
  return { content: [{ type: 'text', text: `${action}: ${answer.action}${answer.content === undefined ? '' : ` ${JSON.stringify(answer.content)}`}` }] };
});

server.registerTool('garbage', { description: 'Write a line that is not JSON-RPC to stdout, then hang.' }, async (extra) => {
  process.stdout.write('this is not json {{{\n');
  await sleep(60_000, extra.signal);
  return { content: [{ type: 'text', text: 'too late' }] };
});

server.registerTool('bad-result', { description: 'Answer with a well-formed response whose result is not a CallToolResult.' }, async (extra) => {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: extra.requestId, result: { content: 'not an array' } })}\n`);
  await sleep(60_000, extra.signal);
  return { content: [{ type: 'text', text: 'too late' }] };
});

await server.connect(new StdioServerTransport());
process.stderr.write('fixture-server ready\n');
