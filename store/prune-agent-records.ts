// Retention for what agents keep in the store: finished A2A tasks and idle execute_agent sessions.
// Runs and tasks of workers are pruned by store/prune.ts; this is the same cut for agents' rows.
import { TaskState } from '@a2a-js/sdk';
import { SCHEMA, type Pool } from './store.js';

/** A2A task states that no message changes any more. */
const TERMINAL_A2A_STATES = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

export interface AgentRecordsPruned {
  a2aTasks: number;
  agentSessions: number;
}

/**
 * Deletes the A2A tasks that ended before `cutoff` (a task still submitted, working or waiting for
 * input stays) with their session traces, and the `execute_agent` sessions last used before it. A context whose tasks all went
 * starts afresh: its next message has no earlier turns.
 */
export async function pruneAgentRecords(pool: Pool, cutoff: Date): Promise<AgentRecordsPruned> {
  const tasks = await pool.query<{ task_id: string }>(
    `DELETE FROM ${SCHEMA}.a2a_tasks WHERE state = ANY($1::int[]) AND updated_at < $2 RETURNING task_id`,
    [TERMINAL_A2A_STATES, cutoff],
  );
  // Their session traces (run_events under the A2A task id) go with them.
  await pool.query(`DELETE FROM ${SCHEMA}.run_events WHERE run_id = ANY($1::text[])`, [tasks.rows.map((row) => row.task_id)]);
  const sessions = await pool.query(`DELETE FROM ${SCHEMA}.agent_sessions WHERE updated_at < $1`, [cutoff]);
  return { a2aTasks: tasks.rowCount ?? 0, agentSessions: sessions.rowCount ?? 0 };
}
