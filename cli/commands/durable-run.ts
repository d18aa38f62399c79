import { describeStore, openApprovals, submitRun, type DurableRunEvent } from '../../durable/index.js';
import { printJson, progress, UsageError } from '../output.js';
import { printRunResult, type RunCommandOptions } from './run.js';

/**
 * `agent-spaces run` with a store: the program is queued in the store, a worker runs it, and its log
 * lines, approvals and result come back here. `--approve all|none` answers its approvals from here;
 * otherwise anyone decides them with `agent-spaces approvals`.
 */
export async function durableRunCommand(options: RunCommandOptions & { store: string; code: string }): Promise<number> {
  if (options.approve !== undefined && options.approve !== 'all' && options.approve !== 'none') throw new UsageError(`--approve takes "all" or "none" (got "${options.approve}")`);
  if (options.studio !== undefined) throw new UsageError('--studio does not apply to a run in a store: decide its approvals with "agent-spaces approvals"');
  if (options.isolation !== undefined) throw new UsageError('--isolation does not apply to a run in a store: the worker\'s config decides its sandbox');
  const approvals = options.approve === undefined ? undefined : await openApprovals(options.store);
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  try {
    const result = await submitRun({
      store: options.store,
      code: options.code,
      check: options.check,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      signal: controller.signal,
      onNoWorker: (runId) => progress(`run ${runId} queued in ${describeStore(options.store)}; no worker is running — start \`agent-spaces worker\``),
      onEvent: (event) => {
        report(event, options);
        if (event.kind === 'approval-required' && approvals !== undefined) {
          void approvals.decide(event.approvalId, { approved: options.approve === 'all', reason: `${options.approve === 'all' ? 'approved' : 'denied'} by --approve ${options.approve}` }).catch(() => undefined);
        }
      },
    });
    if (options.json) printJson(result);
    else printRunResult(result, options.file, { logsPrinted: true });
    return result.success ? 0 : 1;
  } finally {
    process.off('SIGINT', stop);
    await approvals?.close();
  }
}

function report(event: DurableRunEvent, options: { json: boolean; verbose: boolean }): void {
  switch (event.kind) {
    case 'log':
      if (!options.json) progress(`${event.log.level === 'log' || event.log.level === 'info' ? '' : `[${event.log.level}] `}${event.log.message}`);
      return;
    case 'started':
      if (event.attempt > 1) progress(`run taken over by worker ${event.executorId} (attempt ${event.attempt}; ${event.replayedCalls} finished calls answered from the journal)`);
      else if (options.verbose) progress(`run started on worker ${event.executorId}`);
      return;
    case 'approval-required':
      progress(`[approval] ${event.capability}.${event.function}: ${event.message}\n  waiting: agent-spaces approvals approve ${event.approvalId}  (or deny)${event.deadline ? `; denied at ${event.deadline} unless decided` : ''}`);
      return;
    case 'approval-decided':
      progress(`[approval] ${event.approvalId}: ${event.approved ? 'approved' : 'denied'}${event.reason ? ` (${event.reason})` : ''}`);
      return;
    case 'end':
      return;
  }
}
