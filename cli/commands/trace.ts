import { loadConfig } from '../../config/index.js';
import { readStoredTrace, STORE_ENV } from '../../store/index.js';
import { toTerminalJson } from '../../bridge/index.js';
import { UsageError } from '../output.js';
import { storeOf } from '../store-option.js';

export interface TraceCommandOptions {
  cwd: string;
  config?: string;
  store?: string;
  id: string;
}

/**
 * `agent-spaces trace <id>`: the trace of a run or task a worker executed, from the store, as JSON lines
 * on stdout. A task's lines are those of a trace file (`task --replay` takes them); a run's are its
 * events (started, log, approvals, end).
 */
export async function traceCommand(options: TraceCommandOptions): Promise<number> {
  const config = await loadConfig({ cwd: options.cwd, ...(options.config ? { file: options.config } : {}) });
  const store = storeOf(options.store, config);
  if (store === undefined)
    throw new UsageError(`the traces of durable runs live in a store: --store postgres://…, "store" in the config, or $${STORE_ENV}`);
  const trace = await readStoredTrace(store, options.id);
  if (trace === undefined) throw new UsageError(`the store has no run or task "${options.id}"`);
  // One JSON value a line; characters a terminal would act on are written as \u escapes (still JSON).
  for (const event of trace.events) process.stdout.write(`${toTerminalJson(event)}\n`);
  return 0;
}
