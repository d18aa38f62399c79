import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { CallToolResult, InputRequiredResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { formatArguments } from '../bridge/index.js';
import type { Catalog } from '../compiler/index.js';
import { BUILD_LAYOUT, createRedactor, type ApprovalRequest, type BridgeEvent, type RunLog, type RunResult } from '../core/index.js';
import type { ServeStore, StoredApproval } from '../store/index.js';
import { addDeclarations, searchTools, type Space } from '../space/index.js';
import { ApprovalRounds, DEFAULT_APPROVAL_WAIT_MS, type ApprovalAnswer, type RunProgress } from './approval-rounds.js';
import { RESULT_PAGE_TEMPLATE, ResultPages } from './result-pages.js';
import { describeRun, runResultToTool } from './run-result-to-tool.js';
import { createSealer } from './sealed-state.js';
import { StoredRuns } from './stored-runs.js';
import { executeCodeInput, executeCodeOutput, getTypesInput, searchToolsInput } from './tool-schemas.js';
import { INVOKE_INSTRUCTIONS, registerInvokeTools, type ServeMode } from './invoke-tools.js';
import { traceOf } from './trace-of.js';

/** Results larger than this are cut (execute_code: paged, the rest readable as a resource), with a note saying how to get less. */
export const MAX_RESULT_CHARS = 64 * 1024;
/** Log lines of one run sent as progress, and the characters of each (the result has them all). */
export const MAX_LOG_NOTIFICATIONS = 200;
/** Finished calls of one run sent as progress (a program may make `maxCalls` of them; the result counts them all). */
export const MAX_CALL_NOTIFICATIONS = 200;
const MAX_LOG_NOTIFICATION_CHARS = 2_000;
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const approveSchema = () => ({
  type: 'object' as const,
  properties: { approve: { type: 'boolean' as const, title: 'Approve this call?' } },
  required: ['approve'],
});

const INSTRUCTIONS = `Agent Spaces runs TypeScript that you write against typed capability modules.
1. search_tools finds functions (query in words; an empty query lists the modules).
2. get_types returns the TypeScript declarations of the modules you need.
3. execute_code runs your program: import { fn } from '@capabilities/<module>', await calls (use Promise.all for independent ones), filter and aggregate in code, and \`export default\` only what you need — logs and results are size-capped.
Calls marked "requires approval" pause until the user decides.`;

/** Routes bridge events and approval requests of one space to the run (and so the client) they belong to. */
export interface RunRouter {
  onEvent(event: BridgeEvent): void;
  approve(request: ApprovalRequest): Promise<ApprovalAnswer>;
}

interface RunHooks {
  onEvent(event: BridgeEvent): void;
  approve?(request: ApprovalRequest): Promise<ApprovalAnswer>;
  /** Why approvals are denied when `approve` is absent. */
  denial?: string;
}

export interface RunRouterOptions {
  /** Key of sealed approval states and result handles (32+ characters; default `$AGENT_SPACES_STATE_KEY`, else random per process). */
  stateKey?: string;
  /** How long a run of a 2026-07-28 client waits for the retry that answers its approvals. Default 10 min. */
  approvalWaitMs?: number;
  /** A durable runs' store: execute_code submits its program there, and a worker runs it (see `StoredRuns`). */
  store?: ServeStore;
}

export type SpaceRunRouter = RunRouter & {
  register(runId: string, hooks: RunHooks): () => void;
  /** Approval rounds of 2026-07-28 clients (runs that outlive one request). */
  readonly rounds: ApprovalRounds;
  /** Large results, readable in pages. */
  readonly pages: ResultPages;
  /** With a store: programs go there instead of running in this process. */
  readonly stored?: StoredRuns;
  /**
   * At most this many runs may wait for approval at once; a call of another run that needs approval
   * meanwhile is denied. A waiting run keeps its sandbox slot, so `serve --http` sets this to one less
   * than its slots: a client that never answers cannot stall every other caller's program.
   */
  limitWaitingRuns(max: number): void;
  /** Cancels the runs still waiting for approval. */
  close(): void;
};

/**
 * Creates the router a space is created with, before any MCP server exists. It holds what outlives one
 * request and is shared by every MCP server instance of the space: waiting runs and stored results.
 */
export function createRunRouter(options: RunRouterOptions = {}): SpaceRunRouter {
  const runs = new Map<string, RunHooks>();
  const sealer = createSealer(options.stateKey);
  const rounds = new ApprovalRounds(sealer, options.approvalWaitMs === undefined ? {} : { waitMs: options.approvalWaitMs });
  const pages = new ResultPages(sealer, { pageChars: MAX_RESULT_CHARS });
  const stored =
    options.store === undefined
      ? undefined
      : new StoredRuns(options.store, sealer, { waitMs: options.approvalWaitMs ?? DEFAULT_APPROVAL_WAIT_MS });
  /** Runs with a call waiting for approval, and how many calls each. */
  const waiting = new Map<string, number>();
  let maxWaitingRuns = Number.POSITIVE_INFINITY;
  return {
    rounds,
    pages,
    ...(stored ? { stored } : {}),
    limitWaitingRuns(max) {
      maxWaitingRuns = Math.max(1, max);
    },
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
        return {
          approved: false,
          reason:
            hooks?.denial ?? 'the MCP client cannot be asked (it does not support elicitation), so calls that require approval are denied',
        };
      }
      const runId = request.runId ?? '';
      if (!waiting.has(runId) && waiting.size >= maxWaitingRuns) {
        return {
          approved: false,
          reason: `too many runs are waiting for approval on this server (${waiting.size}); each keeps its sandbox slot, and one is always left for runs that need none. Retry once they are answered, or raise sandbox.workers`,
        };
      }
      waiting.set(runId, (waiting.get(runId) ?? 0) + 1);
      try {
        return await hooks.approve(request);
      } finally {
        const left = (waiting.get(runId) ?? 1) - 1;
        if (left > 0) waiting.set(runId, left);
        else waiting.delete(runId);
      }
    },
    close() {
      rounds.close();
    },
  };
}

/**
 * An MCP server offering code mode over a space: `search_tools`, `get_types`, `execute_code`, and the
 * pages of large results as resources. It serves both protocol eras: a 2025-11-25 session is asked for
 * approvals with elicitation requests; a 2026-07-28 request gets `input_required` with a sealed state
 * and its retry resumes the same run. Made per session (2025) or per request (2026); the space and the
 * router are shared.
 */
export async function createAgentSpacesMcpServer(
  space: Space,
  router: SpaceRunRouter,
  info: { name: string; version: string },
  options: { mode?: ServeMode } = {},
): Promise<McpServer> {
  // The MCP SDK loads when a server is made, not with the package.
  const { McpServer, ResourceTemplate, inputRequired } = await import('@modelcontextprotocol/server');
  const mode = options.mode ?? 'code';
  const server = new McpServer(
    { name: info.name, version: info.version },
    { instructions: mode === 'invoke' ? INVOKE_INSTRUCTIONS : INSTRUCTIONS, capabilities: { logging: {} } },
  );
  const redactResult = createRedactor({ secrets: space.secrets });
  let catalogCache: Promise<Catalog> | undefined;
  const catalog = () => (catalogCache ??= space.catalog());

  if (mode !== 'code') {
    // Search-and-invoke (server/invoke-tools.ts): call_tool is a direct call through the bridge.
    registerInvokeTools(
      server,
      {
        space,
        catalog,
        redact: redactResult,
        maxResultChars: MAX_RESULT_CHARS,
        register: (runId, ctx) =>
          router.register(runId, {
            onEvent: () => undefined,
            ...(!modernEra(ctx) && server.server.getClientCapabilities()?.elicitation
              ? { approve: (request: ApprovalRequest) => elicitApproval(ctx, request) }
              : {
                  denial:
                    'call_tool asks approvals by elicitation on a 2025-11-25 session; this client cannot be asked, so calls that require approval are denied',
                }),
          }),
      },
      { withSearch: mode === 'invoke' },
    );
    if (mode === 'invoke') return server;
  }

  server.registerTool(
    'search_tools',
    {
      title: 'Search tools',
      description: 'Find capability functions by what they do. Returns ids (<module>.<function>), signatures and descriptions.',
      inputSchema: searchToolsInput,
      annotations: { readOnlyHint: true },
    },
    async ({ query, detail_level, limit }) => {
      const found = searchTools(await catalog(), query, {
        ...(detail_level ? { detailLevel: detail_level } : {}),
        ...(limit ? { limit } : {}),
      });
      // "full" carries each function's whole declaration from the build, as the planner's search does.
      const result = detail_level === 'full' ? await addDeclarations(found, space.config.outDir) : found;
      return text(JSON.stringify(result, null, 2));
    },
  );

  server.registerTool(
    'get_types',
    {
      title: 'Get TypeScript declarations',
      description: 'The TypeScript declarations of capability modules, to write code against.',
      inputSchema: getTypesInput,
      annotations: { readOnlyHint: true },
    },
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
        const dts = await readFile(
          path.join(space.config.outDir, BUILD_LAYOUT.capabilitiesDir, module, BUILD_LAYOUT.moduleFiles.declarations),
          'utf8',
        );
        parts.push(`// ----- import ... from '@capabilities/${module}' -----\n${dts}`);
      }
      if (unknown.length > 0) {
        return errorText(
          `unknown module${unknown.length > 1 ? 's' : ''} ${unknown.map((m) => `"${m}"`).join(', ')}; known: ${[...known].sort().join(', ')}`,
        );
      }
      return text(parts.join('\n'));
    },
  );

  server.registerTool(
    'execute_code',
    {
      title: 'Execute TypeScript',
      description:
        'Type-check and run a TypeScript program in the sandbox with every capability. Returns result, logs, and errors with line numbers. A result too large for one answer comes with a resource link to read it in pages.',
      inputSchema: executeCodeInput,
      outputSchema: executeCodeOutput,
    },
    async ({ code }, ctx) => {
      const progress = progressSender(ctx);
      const run = router.stored
        ? await runStored(router.stored, code, ctx, progress)
        : modernEra(ctx)
          ? await runInRounds(code, ctx, progress)
          : await runInSession(code, ctx, progress);
      if (!isRunResult(run)) return run;
      await progress.flush();
      // A program that obtained a host secret (a tool that returned one) must not hand it to the client.
      // A stored run's pages can be read on any replica (made again from the store's result).
      const storedRun = router.stored && 'runId' in run && typeof run.runId === 'string' ? run.runId : undefined;
      return runResultToTool(redactResult(run), MAX_RESULT_CHARS, router.pages, pageScope(ctx), storedRun);
    },
  );

  server.registerResource(
    'execute_code results',
    new ResourceTemplate(RESULT_PAGE_TEMPLATE, { list: undefined }),
    {
      title: 'Pages of a large execute_code result',
      description:
        'The whole text of an execute_code result too large for one answer, one page per URI (pages from 1); linked from that result.',
      mimeType: 'text/plain',
    },
    async (uri, variables, ctx) => {
      const stored = router.stored;
      const remake = stored
        ? async (run: string) => {
            const result = await stored.runResult(run);
            return result === undefined ? undefined : describeRun(redactResult(result));
          }
        : undefined;
      const page = await router.pages.read(String(variables.handle), String(variables.page), pageScope(ctx), remake);
      if ('missing' in page) throw new Error(`no such result page: ${page.missing}`);
      return {
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: page.text }],
        _meta: {
          'agent-spaces/page': page.page,
          'agent-spaces/pages': page.pages,
          ...(page.next ? { 'agent-spaces/next': page.next } : {}),
        },
      };
    },
  );

  /**
   * Submits the program to the store (a worker runs it) and follows it: a 2026-07-28 client that can
   * elicit answers its approvals in `input_required` rounds (its retry may reach any replica); a
   * 2025-11-25 session that can elicit is asked on this request's stream; otherwise approvals wait in the
   * store for `agent-spaces approvals` or a studio.
   */
  async function runStored(
    stored: StoredRuns,
    code: string,
    ctx: ServerContext,
    progress: ProgressSender,
  ): Promise<RunResult | CallToolResult | InputRequiredResult> {
    const hooks = {
      signal: ctx.mcpReq.signal,
      onLog: (log: RunLog) => progress.log(redactResult(log)),
      onNotice: (message: string) => progress.notice(message),
    };
    if (modernEra(ctx) && clientCapabilities(ctx)?.elicitation) {
      const outcome = await stored.round(
        code,
        ctx.mcpReq.requestState<unknown>(),
        (approvalId) => decisionOf(ctx.mcpReq.inputResponses?.[approvalId]),
        hooks,
      );
      if (outcome.kind === 'refused') return errorText(`execute_code: ${outcome.message}`);
      if (outcome.kind === 'done') return outcome.result;
      return inputRequired({
        inputRequests: Object.fromEntries(
          outcome.waiting.map((approval) => [
            approval.id,
            inputRequired.elicit({ message: approvalMessage(approval), requestedSchema: approveSchema() }),
          ]),
        ),
        requestState: outcome.requestState,
      });
    }
    const canElicit = !modernEra(ctx) && Boolean(server.server.getClientCapabilities()?.elicitation);
    const ask = async (approval: StoredApproval, signal: AbortSignal): Promise<ApprovalAnswer | undefined> =>
      decisionOf(await ctx.mcpReq.elicitInput({ message: approvalMessage(approval), requestedSchema: approveSchema() }, { signal }));
    const result = await stored.follow(code, { ...hooks, ...(canElicit ? { ask } : {}) });
    return 'refused' in result ? errorText(`execute_code: ${result.refused}`) : result;
  }

  /** Runs the program of a 2025-11-25 session: approvals are elicitation requests on the session, as the request waits. */
  async function runInSession(code: string, ctx: ServerContext, progress: ProgressSender): Promise<RunResult> {
    const runId = randomUUID();
    const canElicit = Boolean(server.server.getClientCapabilities()?.elicitation);
    const unregister = router.register(runId, {
      onEvent: (event) => progress.callEnded(event),
      ...(canElicit ? { approve: (request: ApprovalRequest) => elicitApproval(ctx, request) } : {}),
    });
    try {
      return await space.run(code, {
        runId,
        signal: ctx.mcpReq.signal,
        ...traceOf(ctx),
        ...(progress.wanted ? { onLog: (log: RunLog) => progress.log(redactResult(log)) } : {}),
      });
    } finally {
      unregister();
    }
  }

  /**
   * Runs (or resumes) the program of a 2026-07-28 request: the run may outlive the request, parked in
   * the router's approval rounds, and a retry carrying the sealed `requestState` picks it up again.
   */
  async function runInRounds(
    code: string,
    ctx: ServerContext,
    progress: ProgressSender,
  ): Promise<RunResult | CallToolResult | InputRequiredResult> {
    const state = ctx.mcpReq.requestState<unknown>();
    let runId: string;
    if (state !== undefined) {
      const resumed =
        typeof state === 'string'
          ? router.rounds.resume(state, (callId) => decisionOf(ctx.mcpReq.inputResponses?.[callId]))
          : { refused: 'the requestState is not a string' };
      if ('refused' in resumed) return errorText(`execute_code refused the retry: ${resumed.refused}`);
      runId = resumed.runId;
    } else {
      runId = randomUUID();
      const canElicit = Boolean(clientCapabilities(ctx)?.elicitation);
      const unregister = router.register(runId, {
        onEvent: (event) => router.rounds.progressOf(runId)?.callEnded(event),
        ...(canElicit
          ? { approve: (request: ApprovalRequest) => router.rounds.approve(request) }
          : {
              denial:
                'the MCP client declared no elicitation capability, so it cannot answer approvals (input_required with elicitation requests); calls that require approval are denied',
            }),
      });
      const refused = router.rounds.start(runId, (signal) =>
        space
          .run(code, { runId, signal, ...traceOf(ctx), onLog: (log) => router.rounds.progressOf(runId)?.log(redactResult(log)) })
          .finally(unregister),
      );
      if (refused) {
        unregister();
        return errorText(`execute_code refused: ${refused}`);
      }
    }
    const outcome = await router.rounds.next(runId, ctx.mcpReq.signal, progress);
    if (outcome.kind === 'done') return outcome.result;
    return inputRequired({
      inputRequests: Object.fromEntries(
        outcome.waiting.map(({ callId, request }) => [
          callId,
          inputRequired.elicit({ message: approvalMessage(request), requestedSchema: approveSchema() }),
        ]),
      ),
      requestState: outcome.requestState,
    });
  }

  return server;
}

function isRunResult(value: RunResult | CallToolResult | InputRequiredResult): value is RunResult {
  return 'success' in value && 'logs' in value;
}

/** Whether a request is of the 2026-07-28 protocol (it carries the per-request `_meta` envelope). */
function modernEra(ctx: ServerContext): boolean {
  return ctx.mcpReq.envelope !== undefined && Object.keys(ctx.mcpReq.envelope).length > 0;
}

function clientCapabilities(ctx: ServerContext): { elicitation?: unknown } | undefined {
  return (ctx.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined)?.[CLIENT_CAPABILITIES_KEY];
}

/** Where a large result's pages may be read: the session that made it, or (no session) whoever holds its sealed handle. */
function pageScope(ctx: ServerContext): string {
  return ctx.sessionId ? `session:${ctx.sessionId}` : 'handle';
}

function approvalMessage(request: Pick<ApprovalRequest, 'message' | 'capability' | 'function' | 'params'>): string {
  // The exact arguments, always: a tool's message may leave one out or describe it loosely.
  return `${request.message}\n(${request.capability}.${request.function})\narguments: ${formatArguments(request.params)}`;
}

async function elicitApproval(ctx: ServerContext, request: ApprovalRequest): Promise<ApprovalAnswer> {
  const reply = await ctx.mcpReq.elicitInput(
    { message: approvalMessage(request), requestedSchema: approveSchema() },
    { signal: ctx.mcpReq.signal },
  );
  return (
    decisionOf(reply) ?? { approved: false, reason: 'the client answered the approval with something that is not an elicitation result' }
  );
}

/** The decision an elicitation result carries (`undefined` when it is not one). */
function decisionOf(reply: unknown): ApprovalAnswer | undefined {
  if (typeof reply !== 'object' || reply === null || !('action' in reply)) return undefined;
  const { action, content } = reply as { action: unknown; content?: { approve?: unknown } };
  const approved = action === 'accept' && content?.approve === true;
  return {
    approved,
    reason: approved
      ? 'approved by the user'
      : `the user ${action === 'accept' ? 'did not approve' : action === 'decline' ? 'declined' : 'cancelled'}`,
  };
}

interface ProgressSender extends RunProgress {
  readonly wanted: boolean;
  /** A line the caller should know while it waits (sent as progress when it asked for progress). */
  notice(message: string): void;
  /** Waits until the notifications sent so far are out: progress must reach the client before the result does. */
  flush(): Promise<void>;
}

/**
 * Progress of one request, when it asked for progress: log lines and finished calls, each bounded
 * (the result has them all); `progress` grows with every notification.
 */
function progressSender(ctx: ServerContext): ProgressSender {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const sent: Promise<unknown>[] = [];
  let notifications = 0;
  let logLines = 0;
  let callLines = 0;
  const send = (message: string): void => {
    if (progressToken === undefined) return;
    notifications++;
    sent.push(
      ctx.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken, progress: notifications, message } })
        .catch(() => undefined),
    );
  };
  return {
    wanted: progressToken !== undefined,
    notice: send,
    log(log) {
      logLines++;
      if (logLines > MAX_LOG_NOTIFICATIONS) return;
      send(logLines === MAX_LOG_NOTIFICATIONS ? 'log: … the rest of the log is in the result' : logLine(log));
    },
    callEnded(event) {
      if (event.type !== 'tool-call-end') return;
      callLines++;
      if (callLines > MAX_CALL_NOTIFICATIONS) return;
      send(
        callLines === MAX_CALL_NOTIFICATIONS
          ? 'calls: … the result counts the rest'
          : `${event.capability}.${event.function} ${event.ok ? 'done' : `failed (${event.error?.code ?? 'error'})`}`,
      );
    },
    async flush() {
      await Promise.all(sent);
      // The SDK client handles a notification a microtask after a response that arrives in the same
      // chunk, and drops progress once the response is in: let the notifications go out on their own.
      if (sent.length > 0) await new Promise((resolve) => setTimeout(resolve, 2));
    },
  };
}

function logLine({ level, message }: RunLog): string {
  const line = message.length > MAX_LOG_NOTIFICATION_CHARS ? `${message.slice(0, MAX_LOG_NOTIFICATION_CHARS)}… [cut]` : message;
  return `log${level === 'log' ? '' : ` [${level}]`}: ${line}`;
}

function errorText(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

function text(body: string): CallToolResult {
  if (body.length <= MAX_RESULT_CHARS) return { content: [{ type: 'text', text: body }] };
  return {
    content: [
      {
        type: 'text',
        text: `${body.slice(0, MAX_RESULT_CHARS)}\n… [cut at ${MAX_RESULT_CHARS} of ${body.length} characters: ask for fewer modules, a narrower query or detail_level "names"]`,
      },
    ],
  };
}
