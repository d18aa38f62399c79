import type { BackendCall } from '../bridge/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { DurableRunEvent, Pool, StoreWriter } from '../store/internals.js';
import type { AttemptStart } from './attempt-start.js';
import type { createCallCounter } from './call-key.js';
import type { RunJournal } from './run-journal.js';

/** The config's `durable` section (approval deadline, idempotent functions, retention). */
export type DurableSettings = NonNullable<ResolvedConfig['durable']>;

/** A run or task this worker is executing now: its journal, its approvals' counter, its event chain. */
export interface InFlightRun {
  id: string;
  journal: RunJournal;
  countApproval: ReturnType<typeof createCallCounter>;
  append: (event: DurableRunEvent) => Promise<void>;
}

/** What the pieces of one worker share: its store, its id, its runs in flight, whether it is stopping. */
export class WorkerState {
  /** Set once the space is open (its secrets are the writer's); approvals and events come only after. */
  writer: StoreWriter | undefined;
  closing = false;
  readonly runs = new Map<string, InFlightRun>();
  /** Attempts started as their runs were claimed, before DBOS dispatched them (attempt-start.ts `startAhead`). */
  readonly startsAhead = new Map<string, Promise<AttemptStart>>();
  readonly #idempotent: Set<string>;

  constructor(
    readonly store: string,
    readonly pool: Pool,
    readonly executorId: string,
    readonly durable: DurableSettings,
    readonly notice: (line: string) => void,
  ) {
    this.#idempotent = new Set(durable.idempotent ?? []);
  }

  /** The writer every store write of this worker goes through, redacted with the space's secrets. */
  get storeWriter(): StoreWriter {
    if (this.writer === undefined) throw new Error('the worker writes to the store only once its space is open');
    return this.writer;
  }

  /** A planner task's calls carry run ids `<taskId>:<step>:<random>`: they share the task's journal. */
  runOf(runId: string): InFlightRun | undefined {
    return this.runs.get(runId) ?? this.runs.get(runId.split(':')[0] ?? '');
  }

  /** Whether the config says the function `<module>.<function>` (or its whole module) is idempotent. */
  configSaysIdempotent(module: string, fn: string): boolean {
    return this.#idempotent.has(`${module}.${fn}`) || this.#idempotent.has(`${module}.*`);
  }

  /** Whether a call may be performed again when an earlier attempt left it in flight (annotations or config). */
  isIdempotent(call: BackendCall): boolean {
    return call.function.annotations?.idempotentHint === true || this.configSaysIdempotent(call.capability.module, call.function.name);
  }
}
