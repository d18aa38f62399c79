import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRedactor, formatArguments } from '../bridge/index.js';
import type { Catalog } from '../compiler/index.js';
import { serverSecrets } from '../config/index.js';
import { BUILD_LAYOUT, type ApprovalRequest, type BridgeEvent, type RunLog, type RunResult } from '../core/index.js';
import { addDeclarations, searchTools, type Space } from '../space/index.js';
import { executeCodeInput, executeCodeOutput, getTypesInput, searchToolsInput } from './tool-schemas.js';

/** Results larger than this are cut, with a note saying how to get less. */
export const MAX_RESULT_CHARS = 64 * 1024;
/** Log lines of one run sent as progress, and the characters of each (the result has them all). */
export const MAX_LOG_NOTIFICATIONS = 200;
/** Finished calls of one run sent as progress (a program may make `maxCalls` of them; the result counts them all). */
export const MAX_CALL_NOTIFICATIONS = 200;
const MAX_LOG_NOTIFICATION_CHARS = 2_000;

const INSTRUCTIONS = `Agent Spaces runs TypeScript that you write against typed capability modules.
1. search_tools finds functions (query in words; an empty query lists the modules).
2. get_types returns the TypeScript declarations of the modules you need.
3. execute_code runs your program: import { fn } from '@capabilities/<module>', await calls (use Promise.all for independent ones), filter and aggregate in code, and \`export default\` only what you need — logs and results are size-capped.
Calls marked "requires approval" pause until the user decides.`;

/** Routes bridge events and approval requests of one space to the run (and so the client) they belong to. */
export interface RunRouter {
  onEvent(event: BridgeEvent): void;
  approve(request: ApprovalRequest): Promise<{ approved: boolean; reason?: string }>;
}

interface RunHooks {
  onEvent(event: BridgeEvent): void;
  approve?(request: ApprovalRequest): Promise<{ approved: boolean; reason?: string }>;
}

/** Creates the router a space is created with, before any MCP server exists. */
export function createRunRouter(): RunRouter & { register(runId: string, hooks: RunHooks): () => void } {
  const runs = new Map<string, RunHooks>();
  return {
    register(runId, hooks) {
      runs.set(runId, hooks);
      return () => runs.delete(runId);
    },
    onEvent(event) {
      if ('runId' in event && event.runId) runs.get(event.runId)?.onEvent(event);
    },
    async approve(request) {
      const hooks = request.runId ? runs.get(request.runId) : undefined;
      if (!hooks?.approve) {
        return { approved: false, reason: 'the MCP client cannot be asked (it does not support elicitation), so calls that require approval are denied' };
      }
      return hooks.approve(request);
    },
  };
}

/**
 * An MCP server offering code mode over a space: `search_tools`, `get_types`, `execute_code`.
 * One instance per client session; the space (and its sandbox pool and MCP connections) is shared.
 */
export async function createAgentSpacesMcpServer(space: Space, router: ReturnType<typeof createRunRouter>, info: { name: string; version: string }): Promise<McpServer> {
  // The MCP SDK loads when a server is made, not with the package.
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const server = new McpServer({ name: info.name, version: info.version }, { instructions: INSTRUCTIONS, capabilities: { logging: {} } });
  const redactResult = createRedactor({ secrets: serverSecrets(space.config) });
  let catalogCache: Promise<Catalog> | undefined;
  const catalog = () => (catalogCache ??= space.catalog());

  server.registerTool(
    'search_tools',
    { title: 'Search tools', description: 'Find capability functions by what they do. Returns ids (<module>.<function>), signatures and descriptions.', inputSchema: searchToolsInput, annotations: { readOnlyHint: true } },
    async ({ query, detail_level, limit }) => {
      const found = searchTools(await catalog(), query, { ...(detail_level ? { detailLevel: detail_level } : {}), ...(limit ? { limit } : {}) });
      // "full" carries each function's whole declaration from the build, as the planner's search does.
      const result = detail_level === 'full' ? await addDeclarations(found, space.config.outDir) : found;
      return text(JSON.stringify(result, null, 2));
    },
  );

  server.registerTool(
    'get_types',
    { title: 'Get TypeScript declarations', description: 'The TypeScript declarations of capability modules, to write code against.', inputSchema: getTypesInput, annotations: { readOnlyHint: true } },
    async ({ modules }) => {
      const specs = await space.capabilities();
      const known = new Set([...specs.map((spec) => spec.module), ...(specs.some((s) => s.source.kind === 'std') ? ['std'] : [])]);
      const parts: string[] = [];
      const unknown: string[] = [];
      for (const requested of modules) {
        const module = requested.replace(/^@capabilities\//, '');
        if (!known.has(module)) {
          unknown.push(requested);
          continue;
        }
        const dts = await readFile(path.join(space.config.outDir, BUILD_LAYOUT.capabilitiesDir, module, BUILD_LAYOUT.moduleFiles.declarations), 'utf8');
        parts.push(`// ----- import ... from '@capabilities/${module}' -----\n${dts}`);
      }
      if (unknown.length > 0) {
        return { isError: true, content: [{ type: 'text', text: `unknown module${unknown.length > 1 ? 's' : ''} ${unknown.map((m) => `"${m}"`).join(', ')}; known: ${[...known].sort().join(', ')}` }] };
      }
      return text(parts.join('\n'));
    },
  );

  server.registerTool(
    'execute_code',
    {
      title: 'Execute TypeScript',
      description: 'Type-check and run a TypeScript program in the sandbox with every capability. Returns result, logs, and errors with line numbers.',
      inputSchema: executeCodeInput,
      outputSchema: executeCodeOutput,
    },
    async ({ code }, extra) => {
      const runId = randomUUID();
      const progressToken = extra._meta?.progressToken;
      // Progress must reach the client before the result does: the SDK drops progress after a response.
      const sent: Promise<unknown>[] = [];
      // `progress` must grow with every notification: calls and log lines share one count.
      let notifications = 0;
      const notify = (message: string): void => {
        if (progressToken === undefined) return;
        notifications++;
        sent.push(extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: notifications, message } }).catch(() => undefined));
      };
      let logLines = 0;
      let callLines = 0;
      // A client that asked for progress sees the program's log lines as it writes them (redacted like the
      // result), up to a bound: all of them are in the result anyway.
      const onLog = (log: RunLog): void => {
        logLines++;
        if (logLines > MAX_LOG_NOTIFICATIONS) return;
        const { level, message } = redactResult(log);
        const line = message.length > MAX_LOG_NOTIFICATION_CHARS ? `${message.slice(0, MAX_LOG_NOTIFICATION_CHARS)}… [cut]` : message;
        notify(logLines === MAX_LOG_NOTIFICATIONS ? 'log: … the rest of the log is in the result' : `log${level === 'log' ? '' : ` [${level}]`}: ${line}`);
      };
      const unregister = router.register(runId, {
        onEvent(event) {
          if (event.type !== 'tool-call-end') return;
          callLines++;
          if (callLines > MAX_CALL_NOTIFICATIONS) return;
          notify(callLines === MAX_CALL_NOTIFICATIONS ? 'calls: … the result counts the rest' : `${event.capability}.${event.function} ${event.ok ? 'done' : `failed (${event.error?.code ?? 'error'})`}`);
        },
        ...(server.server.getClientCapabilities()?.elicitation ? { approve: (request: ApprovalRequest) => elicitApproval(server, request, extra.signal) } : {}),
      });
      try {
        const result = await space.run(code, { runId, signal: extra.signal, ...(progressToken === undefined ? {} : { onLog }) });
        await Promise.all(sent);
        // The SDK client handles a notification a microtask after a response that arrives in the same
        // chunk, and drops progress once the response is in: let the notifications go out on their own.
        if (sent.length > 0) await new Promise((resolve) => setTimeout(resolve, 2));
        // A program that obtained a host secret (a tool that returned one) must not hand it to the client.
        return runResultToTool(redactResult(result));
      } finally {
        unregister();
      }
    },
  );
  return server;
}

async function elicitApproval(server: McpServer, request: ApprovalRequest, signal: AbortSignal): Promise<{ approved: boolean; reason?: string }> {
  const reply = await server.server.elicitInput(
    {
      // The exact arguments, always: a tool's message may leave one out or describe it loosely.
      message: `${request.message}\n(${request.capability}.${request.function})\narguments: ${formatArguments(request.params)}`,
      requestedSchema: { type: 'object', properties: { approve: { type: 'boolean', title: 'Approve this call?' } }, required: ['approve'] },
    },
    { signal },
  );
  const approved = reply.action === 'accept' && reply.content?.approve === true;
  return { approved, reason: approved ? 'approved by the user' : `the user ${reply.action === 'accept' ? 'did not approve' : reply.action === 'decline' ? 'declined' : 'cancelled'}` };
}

function runResultToTool(result: RunResult): CallToolResult {
  const lines: string[] = [];
  if (result.error?.diagnostics?.length) {
    lines.push('Type errors (the program did not run):');
    for (const d of result.error.diagnostics) lines.push(`  line ${d.line}:${d.column} TS${d.code}: ${d.message}`);
  } else if (result.error) {
    const where = result.error.line ? ` at line ${result.error.line}${result.error.column ? `:${result.error.column}` : ''}` : '';
    lines.push(`Error${where}: ${result.error.name} [${result.error.code}]: ${result.error.message}`);
  }
  if (result.logs.length > 0) {
    lines.push('Logs:');
    for (const log of result.logs) lines.push(`  ${log.level === 'log' ? '' : `[${log.level}] `}${log.message}`);
  }
  if (result.success) lines.push(`Result: ${JSON.stringify(result.result, null, 2)}`);
  lines.push(`(${result.calls} capability call${result.calls === 1 ? '' : 's'}, ${Math.round(result.durationMs)} ms${result.timedOut ? ', timed out' : ''})`);
  let body = lines.join('\n');
  let structured: Record<string, unknown> = { ...result };
  if (body.length > MAX_RESULT_CHARS) {
    body = `${body.slice(0, MAX_RESULT_CHARS)}\n… [cut at ${MAX_RESULT_CHARS} of ${body.length} characters: return aggregates or a slice instead of everything, and log summaries rather than dumps]`;
    structured = { ...structured, ...cutForStructured(result), truncated: true };
  }
  return { content: [{ type: 'text', text: body }], structuredContent: structured, ...(result.success ? {} : { isError: true }) };
}

/**
 * The result and the first logs that fit in the cap together (half of it at most for the result), so
 * `structuredContent` stays as small as the text beside it.
 */
function cutForStructured(result: RunResult): { result: unknown; logs: RunResult['logs'] } {
  const half = MAX_RESULT_CHARS / 2;
  const resultText = JSON.stringify(result.result) ?? '';
  const cutResult = resultText.length > half ? `${resultText.slice(0, half)}…` : result.result;
  let room = MAX_RESULT_CHARS - Math.min(resultText.length, half) - (result.error === undefined ? 0 : JSON.stringify(result.error).length);
  const logs: RunResult['logs'] = [];
  for (const log of result.logs) {
    // The JSON of a log entry: its message (escaping aside) and about 30 characters of keys.
    room -= log.message.length + 32;
    if (room < 0) break;
    logs.push(log);
  }
  return { result: cutResult, logs };
}

function text(body: string): CallToolResult {
  if (body.length <= MAX_RESULT_CHARS) return { content: [{ type: 'text', text: body }] };
  return { content: [{ type: 'text', text: `${body.slice(0, MAX_RESULT_CHARS)}\n… [cut at ${MAX_RESULT_CHARS} of ${body.length} characters: ask for fewer modules, a narrower query or detail_level "names"]` }] };
}
