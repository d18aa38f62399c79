import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DBOS, type DLogger, type GetWorkflowsInput } from '@dbos-inc/dbos-sdk';
import type { BackendCall } from '../bridge/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { errorMessage, type ApprovalHandler, type RunResult } from '../core/index.js';
import { executeTask, type TaskResult } from '../planner/index.js';
import type { Space, SpaceOptions } from '../space/index.js';
import { applicationVersion } from './app-version.js';
import { createCallCounter, type CallKey } from './call-key.js';
import { openRunJournal, type RunJournal } from './run-journal.js';
import { openModelJournal } from './model-journal.js';
import { taskModel } from './task-model.js';
import {
  APPLICATION_NAME,
  RUN_QUEUE,
  RUN_WORKFLOW,
  TASK_WORKFLOW,
  appendRunEvent,
  closeRunApprovals,
  createApprovalWaiter,
  createEnginePool,
  createPool,
  createStoreWriter,
  describeStore,
  ensureStoreSchema,
  holdLiveness,
  migrateDbosSchema,
  parseDuration,
  priorAttempts,
  pruneOnce,
  requestStoredApproval,
  storeUnavailable,
  whileDead,
  type ApprovalWaiter,
  type DurableError,
  type DurableRunEvent,
  type DurableRunRequest,
  type DurableTaskRequest,
  type StoreWriter,
} from '../store/internals.js';

export interface WorkerOptions {
  /** The store's PostgreSQL URL. */
  store: string;
  config: ResolvedConfig;
  /** Opens this worker's space (the CLI passes agents' `openSpace`, so agent capabilities work too). */
  openSpace: (options: SpaceOptions) => Promise<Space>;
  /** Runs this worker executes at once (default 4). */
  concurrency?: number;
  /** This worker's id in the store (default: host, pid and a random part). */
  executorId?: string;
  /** What the worker does, line by line (took a run, took over a dead worker's runs, …). */
  onNotice?: (line: string) => void;
  /** The worker lost the store (its liveness connection): it must stop, as others may take its runs. */
  onFatal?: (error: Error) => void;
  /** How often to look for runs of dead workers, in ms (default 1000). */
  takeoverIntervalMs?: number;
}

export interface DurableWorker {
  readonly executorId: string;
  close(): Promise<void>;
}

/** What one kind of durable work (a code run, a planner task) brings to an attempt at it. */
interface AttemptSpec<Result> {
  kind: 'run' | 'task';
  /** Model replies the attempt answers from the store (a task's), for its `started` event. */
  modelReplies: number;
  /** Executes it; `report` appends an event in order, `priorLogs` are the log lines earlier attempts wrote. */
  perform(context: { signal: AbortSignal; priorLogs: number; report: (event: DurableRunEvent) => void }): Promise<Result>;
  /** Its result once the journal had its say (a replay that diverged, an unknown outcome), redacted. */
  settle(result: Result, journal: RunJournal): Result;
  /** How the worker's notice says it ended. */
  outcome(result: Result): string;
}

/** The per-process state the workflow function reaches (DBOS is one per process, so is a worker). */
let active:
  | {
      execute(runId: string, request: DurableRunRequest): Promise<RunResult>;
      executeTask(taskId: string, request: DurableTaskRequest): Promise<TaskResult>;
    }
  | undefined;
let registered:
  { run: (request: DurableRunRequest) => Promise<RunResult>; task: (request: DurableTaskRequest) => Promise<TaskResult> } | undefined;

/**
 * Starts a worker: it executes queued runs from the store with its own space (sandbox pool, MCP
 * connections), journals every call, waits for approvals in memory while it lives, and takes over
 * the runs of workers that died. One worker per process.
 */
export async function startWorker(options: WorkerOptions): Promise<DurableWorker> {
  if (active !== undefined) throw new Error('a worker is already running in this process (DBOS runs one application per process)');
  const executorId = options.executorId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const notice = options.onNotice ?? (() => undefined);
  const durable = options.config.durable ?? {};
  const retention =
    durable.retention === undefined
      ? undefined
      : {
          olderThanMs: parseDuration(durable.retention.olderThan, 'durable.retention.olderThan'),
          // At most one round a second, whatever the config says.
          intervalMs: Math.max(1000, parseDuration(durable.retention.interval ?? '1h', 'durable.retention.interval')),
        };
  const pool = createPool(options.store);
  let closing = false;
  // A start that fails half-way closes what it opened, newest first: a library caller keeps no held
  // liveness lock (its executor id would look alive) and may start a worker again.
  const opened: (() => Promise<unknown>)[] = [() => pool.end()];
  const failStart = async (error: unknown): Promise<never> => {
    closing = true;
    for (const close of opened.reverse()) await close().catch(() => undefined);
    throw error;
  };
  await ensureStoreSchema(options.store, pool).catch(failStart);
  // DBOS's schema, made (or upgraded) under the store's set-up lock before DBOS starts: workers starting
  // together take turns, and DBOS.launch only checks it (runMigrations: false).
  await migrateDbosSchema(options.store).catch((error: unknown) => failStart(storeUnavailable(options.store, error)));
  const self: { worker?: DurableWorker } = {};
  const liveness = await holdLiveness(options.store, pool, executorId, (error) => {
    if (closing) return;
    // Others may take this worker's runs over from now on: it must not go on with them.
    notice(`lost the store ${describeStore(options.store)}: stopping (${errorMessage(error)})`);
    void self.worker?.close();
    options.onFatal?.(new Error(`lost the store ${describeStore(options.store)}: ${errorMessage(error)}`));
  }).catch(failStart);
  opened.push(() => liveness.release());
  const waiter: ApprovalWaiter = await createApprovalWaiter(options.store, pool).catch(failStart);
  opened.push(() => waiter.close());
  const runs = new Map<
    string,
    {
      id: string;
      journal: RunJournal;
      countApproval: ReturnType<typeof createCallCounter>;
      append: (event: DurableRunEvent) => Promise<void>;
    }
  >();
  const idempotentIds = new Set(durable.idempotent ?? []);
  const isIdempotent = (call: BackendCall): boolean =>
    call.function.annotations?.idempotentHint === true ||
    idempotentIds.has(`${call.capability.module}.${call.function.name}`) ||
    idempotentIds.has(`${call.capability.module}.*`);

  // A planner task's calls carry run ids `<taskId>:<step>:<random>`: they share the task's journal.
  const runOf = (runId: string): ReturnType<typeof runs.get> => runs.get(runId) ?? runs.get(runId.split(':')[0] ?? '');

  // Set once the space is open (its secrets are the writer's); approvals and events come only after.
  // eslint-disable-next-line prefer-const -- assigned below, once the space is open; the handler above closes over it
  let writer!: StoreWriter;
  const approvalHandler: ApprovalHandler = async (request) => {
    const run = request.runId === undefined ? undefined : runOf(request.runId);
    if (run === undefined || request.runId === undefined)
      return { approved: false, reason: 'a durable worker decides approvals only for the runs it executes' };
    const key: CallKey = run.countApproval(request.capability, request.function, request.params);
    const runId = run.id;
    // A call the journal will not perform (an earlier attempt's call is in flight: its outcome is
    // unknown) is not put to a person: the journal ends the run with OUTCOME_UNKNOWN. (Only the config
    // can say here that a function is idempotent; the journal alone knows its annotations.)
    const idempotent = idempotentIds.has(`${request.capability}.${request.function}`) || idempotentIds.has(`${request.capability}.*`);
    const refused = run.journal.refuses(request.capability, request.function, request.params, idempotent);
    if (refused !== undefined) return { approved: false, reason: refused.message };
    const stored = await requestStoredApproval(writer, {
      runId,
      callKey: key.key,
      capability: request.capability,
      function: request.function,
      params: request.params,
      message: request.message,
      ...(durable.approvalDeadlineMs === undefined ? {} : { deadlineMs: durable.approvalDeadlineMs }),
    });
    if (stored.status !== 'pending') return { approved: stored.status === 'approved', ...(stored.reason ? { reason: stored.reason } : {}) };
    await run.append({
      kind: 'approval-required',
      approvalId: stored.id,
      capability: stored.capability,
      function: stored.function,
      message: stored.message,
      ...(stored.deadline ? { deadline: stored.deadline } : {}),
    });
    notice(`run ${runId}: waiting for approval ${stored.id} (${stored.capability}.${stored.function})`);
    const decided = await waiter.wait(stored);
    await run.append({
      kind: 'approval-decided',
      approvalId: decided.id,
      approved: decided.status === 'approved',
      ...(decided.reason ? { reason: decided.reason } : {}),
    });
    return { approved: decided.status === 'approved', ...(decided.reason ? { reason: decided.reason } : {}) };
  };

  const space = await options
    .openSpace({
      config: options.config,
      approvalHandler,
      journal: (call, perform) => {
        const run = runOf(call.context.runId);
        return run === undefined ? perform() : run.journal.perform(call, perform);
      },
    })
    .catch(failStart);
  opened.push(() => space.close());
  // Everything this worker writes to the store goes through one writer, redacted with the space's secrets.
  writer = createStoreWriter(pool, space.secrets);
  const { redact } = writer;
  // Build (when stale) and load the capabilities before taking runs: a worker that says it is ready is.
  await space.capabilities().catch(failStart);

  /**
   * One attempt at a run or a planner task, whatever it executes: its journal (and the approvals
   * its calls ask for), its `started` event, its events in order, its end. A worker stopping records
   * no end: once its lock is free, another worker takes the run over.
   */
  const attempt = async <Result extends RunResult | TaskResult>(id: string, spec: AttemptSpec<Result>): Promise<Result> => {
    const prior = await priorAttempts(pool, id);
    const controller = new AbortController();
    const journal = await openRunJournal(pool, {
      runId: id,
      executorId,
      isIdempotent,
      onFatal: () => controller.abort(),
      stopping: () => closing,
    });
    // Every event of the attempt goes through one chain: an insert whose `seq` was taken before a later
    // one's but that commits after it would be skipped for good by a follower reading `seq > last seen`.
    let events: Promise<void> = Promise.resolve();
    const append = (event: DurableRunEvent): Promise<void> => {
      const appended = events.then(() => appendRunEvent(writer, id, event));
      events = appended.catch(() => undefined);
      return appended;
    };
    runs.set(id, { id, journal, countApproval: createCallCounter(), append });
    try {
      await appendRunEvent(writer, id, {
        kind: 'started',
        executorId,
        attempt: prior.attempts + 1,
        replayedCalls: journal.replayed + spec.modelReplies,
      });
      notice(
        prior.attempts === 0
          ? `${spec.kind} ${id}: started`
          : `${spec.kind} ${id}: taken over (attempt ${prior.attempts + 1}, ${spec.modelReplies} model replies and ${journal.replayed} calls journaled)`,
      );
      const report = (event: DurableRunEvent): void => void append(event).catch(() => undefined);
      const performed = await spec.perform({ signal: controller.signal, priorLogs: prior.logs, report });
      await events;
      // A worker stopping (Ctrl-C) ends its runs' programs: that is not their outcome.
      if (closing) return await new Promise<never>(() => undefined);
      const result = spec.settle(performed, journal);
      await closeRunApprovals(pool, id);
      await appendRunEvent(writer, id, { kind: 'end', result: result as unknown as Record<string, unknown> });
      notice(`${spec.kind} ${id}: ${spec.outcome(result)}`);
      return result;
    } finally {
      runs.delete(id);
    }
  };

  active = {
    execute: (runId, request) =>
      attempt<RunResult>(runId, {
        kind: 'run',
        modelReplies: 0,
        perform: ({ signal, priorLogs, report }) => {
          // A replay writes the same log lines again: the submitter saw the earlier attempts' lines already.
          let logsToSkip = priorLogs;
          return space.run(request.code, {
            runId,
            check: request.check,
            signal,
            ...(request.limits ? { limits: request.limits } : {}),
            onLog: (log) => {
              if (logsToSkip > 0) logsToSkip -= 1;
              else report({ kind: 'log', log: redact(log) });
            },
          });
        },
        settle: (result, journal) => {
          // However the program ended, an in-flight call of an earlier attempt it did not make again ends it
          // OUTCOME_UNKNOWN; one that succeeded must also have made every journaled call again.
          const fatal: DurableError | undefined = journal.fatal ?? journal.finish({ divergence: result.success });
          return redact(
            fatal === undefined
              ? result
              : { ...result, success: false, result: undefined, error: { name: fatal.name, code: fatal.code, message: fatal.message } },
          );
        },
        outcome: (result) => (result.success ? 'succeeded' : `failed: ${result.error?.code ?? ''} ${result.error?.message ?? ''}`),
      }),
    async executeTask(taskId, request) {
      const model = await openModelJournal(pool, taskId);
      return attempt<TaskResult>(taskId, {
        kind: 'task',
        modelReplies: model.replayed,
        perform: ({ signal, report }) =>
          executeTask(request.task, {
            space,
            taskId,
            signal,
            wrapModelClient: model.wrap,
            ...(request.context ? { context: request.context } : {}),
            ...(request.model ? { model: taskModel(request.model, space.config.model) } : {}),
            ...(request.budget ? { budget: request.budget } : {}),
            onEvent: (event) => report({ kind: 'planner', event: redact(event) }),
          }),
        settle: (result, journal) => {
          // A task whose earlier attempt left a call in flight ends OUTCOME_UNKNOWN unless it made that call again.
          const fatal = journal.fatal ?? journal.finish({ divergence: false });
          // The budget's counts (`tokens: { … }`) pass: the redactor keeps numbers under secret-looking keys.
          return redact(fatal === undefined ? result : { ...result, success: false, finalSummary: `${fatal.code}: ${fatal.message}` });
        },
        outcome: (result) => (result.success ? 'succeeded' : 'failed'),
      });
    },
  };

  registered ??= {
    run: DBOS.registerWorkflow(
      async (request: DurableRunRequest): Promise<RunResult> => {
        const runId = DBOS.workflowID;
        if (active === undefined || runId === undefined) throw new Error('no worker is active in this process');
        return active.execute(runId, request);
      },
      { name: RUN_WORKFLOW },
    ),
    task: DBOS.registerWorkflow(
      async (request: DurableTaskRequest): Promise<TaskResult> => {
        const taskId = DBOS.workflowID;
        if (active === undefined || taskId === undefined) throw new Error('no worker is active in this process');
        return active.executeTask(taskId, request);
      },
      { name: TASK_WORKFLOW },
    ),
  };
  const version = applicationVersion();
  const enginePool = createEnginePool(options.store);
  opened.push(() => enginePool.end());
  DBOS.setConfig({
    name: APPLICATION_NAME,
    systemDatabaseUrl: options.store,
    systemDatabasePool: enginePool,
    runMigrations: false,
    applicationVersion: version,
    executorID: executorId,
    logger: quietLogger(notice),
  });
  opened.push(async () => {
    active = undefined;
  });
  // Closed even when the launch fails half-way: what it started (its queue runner, its LISTEN
  // connection) would keep a process that could not start alive, taking no runs.
  opened.push(() => DBOS.shutdown({ deregister: false }));
  await DBOS.launch().catch(failStart);
  await DBOS.registerQueue(RUN_QUEUE, {
    workerConcurrency: options.concurrency ?? 4,
    minPollingIntervalMs: 100,
    onConflict: 'always_update',
  }).catch(failStart);
  notice(`worker ${executorId} (${version}) takes runs from ${describeStore(options.store)}`);

  // Runs of dead workers: PENDING in DBOS under an executor whose liveness lock is free.
  const takeover = async (): Promise<void> => {
    const pending = await DBOS.listWorkflows({
      status: 'PENDING',
      workflowName: [RUN_WORKFLOW, TASK_WORKFLOW],
      applicationVersion: version,
      loadInput: false,
      loadOutput: false,
    });
    const executors = new Set(
      pending.map((status) => status.executorId).filter((id): id is string => id !== undefined && id !== executorId),
    );
    for (const dead of executors) {
      await whileDead(pool, dead, async () => {
        const orphans = await DBOS.listWorkflows({
          status: 'PENDING',
          workflowName: [RUN_WORKFLOW, TASK_WORKFLOW],
          executorId: dead,
          applicationVersion: version,
          loadInput: false,
          loadOutput: false,
        });
        if (orphans.length === 0) return;
        await DBOS.resumeWorkflows(
          orphans.map((status) => status.workflowID),
          { queueName: RUN_QUEUE },
        );
        notice(
          `worker ${dead} is gone: its ${orphans.length} run(s) went back to the queue (${orphans.map((status) => status.workflowID).join(', ')})`,
        );
      });
    }
  };
  /**
   * Retention: every interval (and once at start), the rows of runs that ended longer than
   * `olderThan` ago go; one worker at a time prunes (the others find its lock taken and skip).
   */
  function startRetention(settings: { olderThanMs: number; intervalMs: number }): NodeJS.Timeout {
    const dbosWorkflows = {
      listWorkflows: (input: GetWorkflowsInput) => DBOS.listWorkflows(input),
      deleteWorkflows: (ids: string[]) => DBOS.deleteWorkflows(ids),
    };
    let pruning = false;
    const round = (): void => {
      if (pruning || closing) return;
      pruning = true;
      pruneOnce(pool, dbosWorkflows, new Date(Date.now() - settings.olderThanMs))
        .then((report) => {
          if (report === undefined || report.runs + report.a2aTasks + report.agentSessions === 0) return;
          notice(
            `retention: deleted the rows of ${report.runs} run(s), ${report.a2aTasks} A2A task(s) and ${report.agentSessions} agent session(s) that ended before the last ${durable.retention?.olderThan ?? ''}`,
          );
        })
        .catch((error: unknown) => {
          if (!closing)
            notice(`retention: pruning the store failed (tried again in ${durable.retention?.interval ?? '1h'}): ${errorMessage(error)}`);
        })
        .finally(() => {
          pruning = false;
        });
    };
    round();
    const pruneTimer = setInterval(round, settings.intervalMs);
    pruneTimer.unref();
    return pruneTimer;
  }

  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping || closing) return;
    sweeping = true;
    takeover()
      .catch((error: unknown) => notice(`looking for runs of dead workers failed: ${errorMessage(error)}`))
      .finally(() => {
        sweeping = false;
      });
  }, options.takeoverIntervalMs ?? 1000);
  timer.unref();

  const pruner = retention === undefined ? undefined : startRetention(retention);

  const worker: DurableWorker = {
    executorId,
    async close() {
      if (closing) return;
      closing = true;
      clearInterval(timer);
      if (pruner !== undefined) clearInterval(pruner);
      // Runs still going stay PENDING under this worker's id; once its lock is free, another worker takes them over.
      await DBOS.shutdown({ deregister: false }).catch(() => undefined);
      active = undefined;
      await Promise.allSettled([space.close(), waiter.close()]);
      await liveness.release();
      await Promise.allSettled([enginePool.end(), pool.end()]);
    },
  };
  self.worker = worker;
  return worker;
}

/** DBOS's own log lines: warnings and errors only, as notices. */
function quietLogger(notice: (line: string) => void): DLogger {
  const text = (entry: unknown): string =>
    entry instanceof Error ? entry.message : typeof entry === 'string' ? entry : JSON.stringify(entry);
  return {
    info: () => undefined,
    debug: () => undefined,
    // Its warnings are mostly of concurrent migrations by workers starting together (and of queue
    // contention); $AGENT_SPACES_DEBUG shows them.
    warn: (entry) => {
      if (process.env.AGENT_SPACES_DEBUG) notice(`dbos: ${text(entry)}`);
    },
    error: (entry) => notice(`dbos: ${text(entry)}`),
  };
}
