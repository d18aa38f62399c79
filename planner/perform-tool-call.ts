import { randomUUID } from 'node:crypto';
import { errorMessage, ToolCallError, type RunResult } from '../core/index.js';
import { addDeclarations, searchTools } from '../space/index.js';
import type { BudgetLimit } from './budget.js';
import type { ParsedCall } from './parse-arguments.js';
import { log, presentValue, toolContent, type TaskRun } from './task-run.js';

/** What one function call of the model led to. */
export interface CallOutcome {
  /** The tool message answering the call. */
  content: string;
  /** One line for the trimmed context and the logs. */
  digest: string;
  /** The budget limit the call ran into; the task stops. */
  breach?: BudgetLimit;
  finish?: { summary: string; result?: unknown };
}

/** Where a call is made: the function name the model sent, and the span of its step. */
export interface CallContext {
  /** As sent (it may name no planner function); default the parsed call's. */
  functionName?: string;
  /** The current step's span: code runs and direct calls are its children. */
  traceparent?: string | undefined;
}

/** Performs one parsed call: search, direct call, code run, finish, or the answer to a malformed one. */
export async function performToolCall(run: TaskRun, call: ParsedCall, context: CallContext = {}): Promise<CallOutcome> {
  switch (call.tool) {
    case 'invalid':
      run.emit({
        type: 'call-rejected',
        function: run.redactor.text(context.functionName ?? call.tool),
        message: run.redactor.text(call.error),
      });
      return answer(run, `invalid call: ${call.error}`, { ok: false, error: { code: 'INVALID_CALL', message: call.error } });
    case 'finish':
      return {
        content: '',
        digest: 'finish',
        finish: { summary: call.summary, ...(call.result !== undefined ? { result: call.result } : {}) },
      };
    case 'search_tools':
      return search(run, call);
    case 'call_tool':
      return callTool(run, call, context.traceparent);
    case 'run_code':
      return runCode(run, call.code, context.traceparent);
  }
}

function answer(run: TaskRun, digest: string, outcome: Record<string, unknown>): CallOutcome {
  log(run, digest);
  return { content: toolContent(run, outcome), digest: `step ${run.usage.steps}: ${run.redactor.text(digest)}` };
}

async function search(run: TaskRun, call: Extract<ParsedCall, { tool: 'search_tools' }>): Promise<CallOutcome> {
  const found = searchTools(run.catalog, call.query, { detailLevel: call.detailLevel, limit: call.limit });
  const result = call.detailLevel === 'full' ? await addDeclarations(found, run.space.config.outDir) : found;
  run.emit({
    type: 'search-run',
    query: run.redactor.text(call.query),
    detailLevel: call.detailLevel,
    matches: result.matches.length,
    total: result.total,
  });
  const hint =
    result.matches.length === 0 && call.query.trim() !== ''
      ? { hint: 'no matches: try other words, or an empty query to list the modules' }
      : {};
  run.rawOutputs.push({
    step: run.usage.steps,
    kind: 'search',
    name: call.query,
    ok: true,
    value: result.matches.map((match) => match.id),
  });
  return answer(run, `search_tools "${call.query}" → ${result.matches.length} of ${result.total} matches`, {
    ok: true,
    ...result,
    ...hint,
  });
}

async function callTool(
  run: TaskRun,
  call: Extract<ParsedCall, { tool: 'call_tool' }>,
  traceparent: string | undefined,
): Promise<CallOutcome> {
  const entry = run.catalog.functions.find((candidate) => candidate.id === call.name);
  if (!entry) {
    const near = searchTools(run.catalog, call.name, { detailLevel: 'names', limit: 3 }).matches.map((match) => match.id);
    const message = `there is no tool "${call.name}"${run.access ? ' available to this task' : ''}${near.length > 0 ? `; did you mean ${near.join(', ')}?` : ''} Use search_tools to find ids.`;
    run.emit({
      type: 'tool-call',
      name: run.redactor.text(call.name),
      ok: false,
      durationMs: 0,
      error: { code: 'UNKNOWN_FUNCTION', message: run.redactor.text(message) },
    });
    run.rawOutputs.push({ step: run.usage.steps, kind: 'tool-call', name: call.name, ok: false, error: message });
    return answer(run, `call_tool ${call.name} → unknown tool`, { ok: false, error: { code: 'UNKNOWN_FUNCTION', message } });
  }
  if (run.usage.toolCalls >= run.usage.limits.maxToolCalls) return { content: '', digest: '', breach: 'maxToolCalls' };
  run.usage.toolCalls++;
  const started = performance.now();
  const runId = `${run.taskId}:${run.usage.steps}:${randomUUID().slice(0, 8)}`;
  const closeStorage = run.space.taskStorage.open(runId, run.stored);
  try {
    const value = await run.space.callTool(call.name, call.arguments, {
      runId,
      session: run.session,
      ...(run.signal ? { signal: run.signal } : {}),
      ...(run.access ? { access: run.access } : {}),
      ...(traceparent ? { traceparent } : {}),
    });
    const durationMs = performance.now() - started;
    const presented = presentValue(run, call.name, value);
    run.emit({ type: 'tool-call', name: call.name, ok: true, durationMs });
    run.rawOutputs.push({ step: run.usage.steps, kind: 'tool-call', name: call.name, ok: true, ...presented });
    return answer(
      run,
      `call_tool ${call.name} → ok${presented.summary ? ` (large result summarised, stored at ${presented.summary.storageRef})` : ''}`,
      { ok: true, ...presented },
    );
  } catch (error) {
    const code = error instanceof ToolCallError ? error.code : 'TOOL_FAILED';
    const message = run.redactor.text(errorMessage(error));
    run.emit({ type: 'tool-call', name: call.name, ok: false, durationMs: performance.now() - started, error: { code, message } });
    run.rawOutputs.push({ step: run.usage.steps, kind: 'tool-call', name: call.name, ok: false, error: message });
    return answer(run, `call_tool ${call.name} → failed: ${code}`, { ok: false, error: { code, message } });
  } finally {
    closeStorage();
  }
}

async function runCode(run: TaskRun, code: string, traceparent: string | undefined): Promise<CallOutcome> {
  if (run.usage.codeRuns >= run.usage.limits.maxCodeRuns) return { content: '', digest: '', breach: 'maxCodeRuns' };
  const remainingCalls = run.usage.limits.maxToolCalls - run.usage.toolCalls;
  if (remainingCalls <= 0) return { content: '', digest: '', breach: 'maxToolCalls' };
  // The bridge refuses calls outside the task's tools, however the program makes them.
  const runId = `${run.taskId}:${run.usage.steps}:${randomUUID().slice(0, 8)}`;
  // The program may read back what this task stored (and nothing another task stored).
  const closeStorage = run.space.taskStorage.open(runId, run.stored);
  let result: RunResult;
  try {
    result = await run.space.run(code, {
      check: true,
      limits: { maxCalls: remainingCalls },
      ...(run.access ? { access: run.access } : {}),
      runId,
      session: run.session,
      ...(run.signal ? { signal: run.signal } : {}),
      ...(traceparent ? { traceparent } : {}),
    });
  } finally {
    closeStorage();
  }
  // A program that did not type-check never ran: it costs a step, not a code run.
  const counted = result.error?.code !== 'TYPE_CHECK_FAILED';
  if (counted) run.usage.codeRuns++;
  run.usage.toolCalls += result.calls;
  const error = result.error ? { code: result.error.code, message: run.redactor.text(result.error.message) } : undefined;
  run.emit({
    type: 'code-run',
    ok: result.success,
    calls: result.calls,
    durationMs: result.durationMs,
    counted,
    ...(error ? { error } : {}),
  });
  const outcome = describeRun(run, result);
  run.rawOutputs.push({
    step: run.usage.steps,
    kind: 'code-run',
    name: 'run_code',
    ok: result.success,
    ...(outcome.presented ?? {}),
    ...(error ? { error: error.message } : {}),
  });
  const digest = result.success ? `run_code → ok, ${result.calls} calls` : `run_code → failed: ${result.error?.code ?? 'error'}`;
  const answered = answer(run, digest, outcome.content);
  return result.error?.code === 'CALL_LIMIT_EXCEEDED' ? { ...answered, breach: 'maxToolCalls' } : answered;
}

const LOG_LINES = 40;
const LOG_LINE_CHARS = 300;

function describeRun(run: TaskRun, result: RunResult): { content: Record<string, unknown>; presented?: ReturnType<typeof presentValue> } {
  const lines = result.logs.map((entry) => `${entry.level === 'log' || entry.level === 'info' ? '' : `[${entry.level}] `}${entry.message}`);
  const logs = run.redactor(capLines(lines));
  if (!result.success) {
    const error = result.error;
    return {
      content: {
        ok: false,
        error:
          error &&
          run.redactor({
            name: error.name,
            code: error.code,
            message: error.message,
            ...(error.line ? { line: error.line, column: error.column } : {}),
            ...(error.diagnostics ? { diagnostics: error.diagnostics.slice(0, 10) } : {}),
          }),
        logs,
        calls: result.calls,
        ...(result.error?.code === 'TYPE_CHECK_FAILED'
          ? { note: 'the program did not type-check and did not run; fix it and run it again' }
          : {}),
      },
    };
  }
  const presented = presentValue(run, 'run_code result', result.result ?? null);
  return { content: { ok: true, ...presented, logs, calls: result.calls }, presented };
}

/** The first and last lines of a long log, each cut short: aggregates belong in the code, not here. */
function capLines(lines: string[]): string[] {
  const cut = lines.map((line) => (line.length > LOG_LINE_CHARS ? `${line.slice(0, LOG_LINE_CHARS)}… (${line.length} chars)` : line));
  if (cut.length <= LOG_LINES) return cut;
  return [...cut.slice(0, LOG_LINES - 10), `… ${cut.length - LOG_LINES} lines left out …`, ...cut.slice(-10)];
}
