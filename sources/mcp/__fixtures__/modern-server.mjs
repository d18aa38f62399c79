// An MCP server of the 2026-07-28 era, built with the SDK v2 (`@modelcontextprotocol/server`): stateless,
// `server/discover`, `input_required` results. Started over stdio (`node modern-server.mjs`, with
// `--legacy reject` to refuse 2025 clients) or imported for HTTP (`createModernHandler`).
// Its tools: echo, add (output schema), deploy (asks to confirm with input_required, checks that the
// client echoes its request state untouched), count (progress on the request's own stream).
import { acceptedContent, createMcpHandler, inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod/v4';

/** What the request state of `deploy`'s first round says: the retry must bring it back byte for byte. */
export const DEPLOY_STATE = 'deploy-state:{"round":1,"nonce":"n-42"}';

/** Every round `deploy` saw, for tests over HTTP (the same process). */
export const deployRounds = [];

function createServer(era) {
  const server = new McpServer({ name: 'modern-fixture', version: '3.1.0' });
  server.registerTool('echo', { description: 'Echo the text', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text: `${text} (${era})` }],
  }));
  server.registerTool(
    'add',
    { description: 'Add two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }), outputSchema: z.object({ sum: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool('deploy', { description: 'Deploy after a person confirms', inputSchema: z.object({ env: z.string() }) }, async ({ env }, ctx) => {
    const state = ctx.mcpReq.requestState();
    const view = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
    deployRounds.push({ env, state: state ?? null, answer: view.kind === 'missing' ? null : ctx.mcpReq.inputResponses?.confirm ?? null });
    process.stderr.write(`deploy round ${JSON.stringify(deployRounds.at(-1))}\n`);
    if (view.kind === 'elicit' && view.action !== 'accept') return { isError: true, content: [{ type: 'text', text: 'deployment declined' }] };
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', z.object({ confirm: z.boolean(), note: z.string().optional() }));
    if (answer === undefined) {
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: `Deploy to ${env}?`,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' }, note: { type: 'string' } }, required: ['confirm'] },
          }),
        },
        requestState: DEPLOY_STATE,
      });
    }
    if (state !== DEPLOY_STATE) return { isError: true, content: [{ type: 'text', text: `request state came back altered: ${String(state)}` }] };
    return { content: [{ type: 'text', text: `deployed to ${env} (confirm: ${answer.confirm}, note: ${answer.note ?? 'none'})` }] };
  });
  server.registerTool('count', { description: 'Count to n, reporting progress', inputSchema: z.object({ n: z.number() }) }, async ({ n }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let step = 1; step <= n; step += 1) {
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: n, message: `step ${step}` } });
    }
    return { content: [{ type: 'text', text: `counted to ${n}` }] };
  });
  return server;
}

/** The web-standard handler for HTTP: both eras unless `legacy: 'reject'`. */
export function createModernHandler(options = {}) {
  return createMcpHandler(({ era }) => createServer(era), options);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const legacy = process.argv.includes('--legacy') ? process.argv[process.argv.indexOf('--legacy') + 1] : 'serve';
  serveStdio(({ era }) => createServer(era), { legacy });
  process.stderr.write('modern-fixture ready\n');
}
