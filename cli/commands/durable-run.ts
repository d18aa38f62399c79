import { submitRun } from '../../store/index.js';
import { followInStore, type OwnEvent } from '../follow-in-store.js';
import { printJson, progress, UsageError } from '../output.js';
import { printRunResult, type RunCommandOptions } from './run.js';

/**
 * `agent-spaces run` with a store: the program is queued in the store, a worker runs it, and its log
 * lines, approvals and result come back here. `--approve all|none` answers its approvals from here;
 * otherwise anyone decides them with `agent-spaces approvals`.
 */
export async function durableRunCommand(options: RunCommandOptions & { store: string; code: string }): Promise<number> {
  if (options.studio !== undefined)
    throw new UsageError('--studio does not apply to a run in a store: decide its approvals with "agent-spaces approvals"');
  if (options.isolation !== undefined)
    throw new UsageError("--isolation does not apply to a run in a store: the worker's config decides its sandbox");
  const follow = {
    store: options.store,
    kind: 'run' as const,
    verbose: options.verbose,
    ...(options.approve !== undefined ? { approve: options.approve } : {}),
    onOwnEvent: (event: OwnEvent) => {
      if (event.kind === 'log' && !options.json)
        progress(`${event.log.level === 'log' || event.log.level === 'info' ? '' : `[${event.log.level}] `}${event.log.message}`);
    },
  };
  const result = await followInStore(follow, (hooks) =>
    submitRun({
      store: options.store,
      code: options.code,
      check: options.check,
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      ...hooks,
    }),
  );
  if (options.json) printJson(result);
  else printRunResult(result, options.file, { logsPrinted: true });
  return result.success ? 0 : 1;
}
