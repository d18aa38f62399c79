// The A2A SDK's TaskStore on the store's PostgreSQL: `tasks/get` of a task created before a restart,
// or by another replica serving the same agent, answers from the table. Loaded only with a store.
import { Task, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { SecretInput } from '../core/index.js';
import { appendRunEvent } from './run-events.js';
import { SCHEMA, type Pool } from './store.js';
import { createStoreWriter } from './store-writer.js';

/** The SDK's page size when a `tasks/list` names none. */
const DEFAULT_PAGE_SIZE = 50;
/** Most tasks one page returns, whatever the caller asks for. */
const MAX_PAGE_SIZE = 100;

/** The A2A tasks of served agents in the store (agents/ takes them as its `A2ATaskStores`; the CLI joins the two). */
export interface StoredA2ATasks {
  /**
   * The task store of one served agent (its path on the server, e.g. `echo-desk`): each agent sees only
   * its own tasks. `secrets` (the agent's server secrets) are cut out of every task before it is written.
   */
  forAgent(agent: string, secrets: readonly SecretInput[]): TaskStore;
  /**
   * Writes each event of a task's session to run_events under the A2A task id (secrets cut out), so
   * `agent-spaces trace <task id>` reads it from any machine. A write that fails loses that event, never the task.
   */
  traceRecorder(agent: string, secrets: readonly SecretInput[]): (taskId: string, event: { type: string }) => void;
  /** Waits for the trace events still being written (opened alone, by openA2ATaskStores: then closes its pool). */
  close(): Promise<void>;
}

/** The A2A tasks over `pool`; `close` waits for the trace events still being written (the pool stays open). */
export function createStoredA2ATasks(pool: Pool): StoredA2ATasks {
  // One chain of writes per task keeps its events in order; a chain is dropped once it is idle.
  const writing = new Map<string, Promise<void>>();
  return {
    forAgent: (agent, secrets) => createA2ATaskStore(pool, agent, secrets),
    traceRecorder(_agent, secrets) {
      const writer = createStoreWriter(pool, secrets);
      return (taskId, event) => {
        const next = (writing.get(taskId) ?? Promise.resolve())
          .then(() => appendRunEvent(writer, taskId, { kind: 'planner', event }))
          .catch(() => undefined);
        writing.set(taskId, next);
        void next.then(() => {
          if (writing.get(taskId) === next) writing.delete(taskId);
        });
      };
    },
    async close() {
      await Promise.all(writing.values());
    },
  };
}

/**
 * Tasks are scoped as the SDK's InMemoryTaskStore scopes them: by tenant and by the caller's user name
 * (`unknown` for an unauthenticated caller), and here also by agent.
 */
export function createA2ATaskStore(pool: Pool, agent: string, secrets: readonly SecretInput[]): TaskStore {
  const writer = createStoreWriter(pool, secrets);
  const scope = (context: ServerCallContext): [string, string, string] => [
    agent,
    textOf('tenant', context.tenant ?? ''),
    context.user?.userName || 'unknown',
  ];
  return {
    async save(task, context) {
      await writer.write(
        `INSERT INTO ${SCHEMA}.a2a_tasks (agent, tenant, owner, task_id, context_id, state, status_timestamp, task)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (agent, tenant, owner, task_id) DO UPDATE
         SET context_id = EXCLUDED.context_id, state = EXCLUDED.state, status_timestamp = EXCLUDED.status_timestamp, task = EXCLUDED.task, updated_at = now()`,
        [
          ...scope(context),
          textOf('task id', task.id),
          textOf('context id', task.contextId),
          task.status?.state ?? 0,
          task.status?.timestamp ?? '',
          { json: Task.toJSON(task) },
        ],
      );
    },

    async load(taskId, context) {
      const { rows } = await pool.query<{ task: string }>(
        `SELECT task FROM ${SCHEMA}.a2a_tasks WHERE agent = $1 AND tenant = $2 AND owner = $3 AND task_id = $4`,
        [...scope(context), textOf('task id', taskId)],
      );
      return rows[0] === undefined ? undefined : Task.fromJSON(JSON.parse(rows[0].task));
    },

    async list(params, context) {
      return listTasks(pool, scope(context), params);
    },
  };
}

/** `tasks/list`: newest status first (then task id), filtered and paged as the SDK's in-memory store does. */
async function listTasks(pool: Pool, scope: [string, string, string], params: ListTasksRequest): Promise<ListTasksResponse> {
  if (params.pageSize !== undefined && !Number.isInteger(params.pageSize))
    throw new RequestMalformedError(`pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE} (got ${JSON.stringify(params.pageSize)})`);
  const pageSize = Math.min(Math.max(params.pageSize ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  if (params.statusTimestampAfter && Number.isNaN(Date.parse(params.statusTimestampAfter))) {
    throw new RequestMalformedError(
      `statusTimestampAfter must be an ISO 8601 timestamp, such as "2026-11-23T10:00:00Z" (got ${JSON.stringify(String(params.statusTimestampAfter).slice(0, 60))})`,
    );
  }
  const conditions = ['agent = $1', 'tenant = $2', 'owner = $3'];
  const values: unknown[] = [...scope];
  const add = (condition: (placeholder: string) => string, value: unknown): void => {
    values.push(value);
    conditions.push(condition(`$${values.length}`));
  };
  if (params.contextId) add((p) => `context_id = ${p}`, textOf('context id', params.contextId));
  if (params.status !== undefined && params.status !== 0) add((p) => `state = ${p}`, params.status);
  // The timestamps are ISO strings the executor writes; the filter compares instants, as the SDK does.
  if (params.statusTimestampAfter)
    add(
      (p) => `status_timestamp <> '' AND status_timestamp::timestamptz > ${p}::timestamptz`,
      new Date(params.statusTimestampAfter).toISOString(),
    );
  const filtered = conditions.join(' AND ');
  const total = await pool.query<{ count: string }>(`SELECT count(*) AS count FROM ${SCHEMA}.a2a_tasks WHERE ${filtered}`, values);
  if (params.pageToken) {
    const cursor = decodePageToken(params.pageToken);
    values.push(cursor.timestamp, cursor.id);
    conditions.push(`(status_timestamp, task_id) < ($${values.length - 1}, $${values.length})`);
  }
  values.push(pageSize + 1);
  const { rows } = await pool.query<{ task: string; task_id: string; status_timestamp: string }>(
    `SELECT task, task_id, status_timestamp FROM ${SCHEMA}.a2a_tasks WHERE ${conditions.join(' AND ')}
     ORDER BY status_timestamp DESC, task_id DESC LIMIT $${values.length}`,
    values,
  );
  const page = rows.slice(0, pageSize);
  const tasks = page.map((row) => {
    const task = Task.fromJSON(JSON.parse(row.task));
    if (!params.includeArtifacts) task.artifacts = [];
    return task;
  });
  const last = page.at(-1);
  const nextPageToken = rows.length > pageSize && last ? Buffer.from(`${last.status_timestamp}|${last.task_id}`).toString('base64') : '';
  return { tasks, nextPageToken, pageSize, totalSize: Number(total.rows[0]?.count ?? 0) };
}

/**
 * An id as a query parameter: PostgreSQL's text cannot hold a NUL character, and a client's id with one
 * is the client's mistake, said as such (not answered with the database's encoding error).
 */
function textOf(field: string, value: string): string {
  if (value.includes('\u0000')) throw new RequestMalformedError(`the ${field} must not contain a NUL character`);
  return value;
}

/** The SDK's page token: base64 of `<status timestamp>|<task id>`. */
function decodePageToken(token: string): { timestamp: string; id: string } {
  const [timestamp, ...id] = Buffer.from(token, 'base64').toString('utf8').split('|');
  if (timestamp === undefined || id.length === 0)
    throw new RequestMalformedError('the page token is not one this server gave (base64 of "<timestamp>|<task id>")');
  return { timestamp, id: id.join('|') };
}
