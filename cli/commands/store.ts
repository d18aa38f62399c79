import { loadConfig } from '../../config/index.js';
import { describeStore, parseDuration, pruneStore, STORE_ENV } from '../../store/index.js';
import { printJson, progress, UsageError } from '../output.js';
import { storeOf } from '../store-option.js';

export interface StorePruneCommandOptions {
  cwd: string;
  config?: string;
  json: boolean;
  store?: string;
  /** A duration (`7d`, `12h`); default 7d. */
  olderThan?: string;
}

/** `agent-spaces store prune`: deletes the rows of durable runs that ended before the cutoff. */
export async function storePruneCommand(options: StorePruneCommandOptions): Promise<number> {
  let olderThanMs: number;
  try {
    olderThanMs = parseDuration(options.olderThan ?? '7d', '--older-than');
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const config = await loadConfig({ cwd: options.cwd, ...(options.config ? { file: options.config } : {}) });
  const store = storeOf(options.store, config);
  if (store === undefined) throw new UsageError(`store prune needs a store: --store postgres://…, "store" in the config, or $${STORE_ENV}`);
  const report = await pruneStore({ store, olderThanMs });
  if (report === undefined) {
    progress(`a worker is pruning ${describeStore(store)} right now (durable.retention): nothing done; try again once it is through`);
    return 1;
  }
  if (options.json) printJson(report);
  else {
    progress(
      `pruned ${describeStore(store)}: ${report.runs} run(s) that ended before the last ${options.olderThan ?? '7d'} (${report.events} events, ${report.calls} journaled calls, ${report.approvals} approvals, ${report.modelReplies} model replies); ${report.a2aTasks} A2A task(s) and ${report.agentSessions} agent session(s)`,
    );
  }
  return 0;
}
