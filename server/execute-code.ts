import { randomUUID } from 'node:crypto';
import type * as ServerSdk from '@modelcontextprotocol/server';
import type { CallToolResult, InputRequiredResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { ApprovalRequest, Redactor, RunLog, RunResult } from '../core/index.js';
import type { Space } from '../space/index.js';
import type { StoredApproval } from '../store/index.js';
import type { ApprovalAnswer } from './approval-rounds.js';
import { approvalMessage, approveSchema, decisionOf, elicitApproval } from './elicit-approval.js';
import { progressSender, type ProgressSender } from './progress-sender.js';
import { clientCapabilities, modernEra, pageScope } from './request-context.js';
import { runResultToTool } from './run-result-to-tool.js';
import type { SpaceRunRouter } from './run-router.js';
import type { StoredRuns } from './stored-runs.js';
import { errorText, MAX_RESULT_CHARS } from './tool-text.js';
import { traceOf } from './trace-of.js';

/** What running an execute_code program needs of its MCP server instance. */
export interface ExecuteCodeContext {
  /** The MCP server instance the request came to (a 2025-11-25 session's client capabilities). */
  server: McpServer;
  space: Space;
  router: SpaceRunRouter;
  /** Cuts the host's secrets out of what the client gets (results, log lines). */
  redact: Redactor;
  /** The SDK's `inputRequired`, loaded with the server. */
  inputRequired: typeof ServerSdk.inputRequired;
}

/**
 * Runs the program of one execute_code request, as its client can be asked for approvals: with a store,
 * submitted there; for a 2026-07-28 request, in approval rounds; in a 2025-11-25 session, with
 * elicitation requests on the session. The result comes back redacted, large ones paged.
 */
export async function executeCode(
  context: ExecuteCodeContext,
  code: string,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const { router } = context;
  const progress = progressSender(ctx);
  const run = router.stored
    ? await runStored(context, router.stored, code, ctx, progress)
    : modernEra(ctx)
      ? await runInRounds(context, code, ctx, progress)
      : await runInSession(context, code, ctx, progress);
  if (!isRunResult(run)) return run;
  await progress.flush();
  // A program that obtained a host secret (a tool that returned one) must not hand it to the client.
  // A stored run's pages can be read on any replica (made again from the store's result).
  const storedRun = router.stored && 'runId' in run && typeof run.runId === 'string' ? run.runId : undefined;
  return runResultToTool(context.redact(run), MAX_RESULT_CHARS, router.pages, pageScope(ctx), storedRun);
}

/**
 * Submits the program to the store (a worker runs it) and follows it: a 2026-07-28 client that can
 * elicit answers its approvals in `input_required` rounds (its retry may reach any replica); a
 * 2025-11-25 session that can elicit is asked on this request's stream; otherwise approvals wait in the
 * store for `agent-spaces approvals` or a studio.
 */
async function runStored(
  context: ExecuteCodeContext,
  stored: StoredRuns,
  code: string,
  ctx: ServerContext,
  progress: ProgressSender,
): Promise<RunResult | CallToolResult | InputRequiredResult> {
  const hooks = {
    signal: ctx.mcpReq.signal,
    onLog: (log: RunLog) => progress.log(context.redact(log)),
    onNotice: (message: string) => progress.notice(message),
    ...sessionOf(ctx),
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
    const waiting = outcome.waiting.map((approval) => ({ id: approval.id, request: approval }));
    return askInRound(context, waiting, outcome.requestState);
  }
  const canElicit = !modernEra(ctx) && Boolean(context.server.server.getClientCapabilities()?.elicitation);
  const ask = async (approval: StoredApproval, signal: AbortSignal): Promise<ApprovalAnswer | undefined> =>
    decisionOf(await ctx.mcpReq.elicitInput({ message: approvalMessage(approval), requestedSchema: approveSchema() }, { signal }));
  const result = await stored.follow(code, { ...hooks, ...(canElicit ? { ask } : {}) });
  return 'refused' in result ? errorText(`execute_code: ${result.refused}`) : result;
}

/** Runs the program of a 2025-11-25 session: approvals are elicitation requests on the session, as the request waits. */
async function runInSession(context: ExecuteCodeContext, code: string, ctx: ServerContext, progress: ProgressSender): Promise<RunResult> {
  const { router, space } = context;
  const runId = randomUUID();
  const canElicit = Boolean(context.server.server.getClientCapabilities()?.elicitation);
  const unregister = router.register(runId, {
    onEvent: (event) => progress.callEnded(event),
    ...(canElicit ? { approve: (request: ApprovalRequest) => elicitApproval(ctx, request) } : {}),
  });
  try {
    return await space.run(code, {
      runId,
      signal: ctx.mcpReq.signal,
      ...sessionOf(ctx),
      ...traceOf(ctx),
      ...(progress.wanted ? { onLog: (log: RunLog) => progress.log(context.redact(log)) } : {}),
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
  context: ExecuteCodeContext,
  code: string,
  ctx: ServerContext,
  progress: ProgressSender,
): Promise<RunResult | CallToolResult | InputRequiredResult> {
  const { router } = context;
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
    const refused = startInRounds(context, runId, code, ctx);
    if (refused) return errorText(`execute_code refused: ${refused}`);
  }
  const outcome = await router.rounds.next(runId, ctx.mcpReq.signal, progress);
  if (outcome.kind === 'done') return outcome.result;
  const waiting = outcome.waiting.map(({ callId, request }) => ({ id: callId, request }));
  return askInRound(context, waiting, outcome.requestState);
}

/** Starts a new run in the router's approval rounds; returns why it was refused, if it was. */
function startInRounds(context: ExecuteCodeContext, runId: string, code: string, ctx: ServerContext): string | undefined {
  const { router, space } = context;
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
      .run(code, {
        runId,
        signal,
        ...traceOf(ctx),
        ...sessionOf(ctx),
        onLog: (log) => router.rounds.progressOf(runId)?.log(context.redact(log)),
      })
      .finally(unregister),
  );
  if (refused) unregister();
  return refused;
}

/** The `input_required` answer of a round: an elicitation per waiting approval, and the sealed state of the retry. */
function askInRound(
  context: ExecuteCodeContext,
  waiting: { id: string; request: Pick<ApprovalRequest, 'message' | 'capability' | 'function' | 'params'> }[],
  requestState: string,
): InputRequiredResult {
  const { inputRequired } = context;
  return inputRequired({
    inputRequests: Object.fromEntries(
      waiting.map(({ id, request }) => [id, inputRequired.elicit({ message: approvalMessage(request), requestedSchema: approveSchema() })]),
    ),
    requestState,
  });
}

/**
 * The session-state scope of a request's runs (`@capabilities/session`): its MCP session, so the
 * programs of one session build on what earlier ones kept. A request outside a session has none.
 */
function sessionOf(ctx: ServerContext): { session?: string } {
  return ctx.sessionId ? { session: `mcp:${ctx.sessionId}` } : {};
}

function isRunResult(value: RunResult | CallToolResult | InputRequiredResult): value is RunResult {
  return 'success' in value && 'logs' in value;
}
