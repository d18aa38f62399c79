import type { ModelClient, ModelReply } from '../planner/index.js';
import { SCHEMA, type Pool } from '../store/internals.js';

/**
 * A durable task's model client: the replies the task already received (an earlier attempt, before
 * its worker died) are answered from the store in order; each new reply is stored before the planner
 * sees it. So a task taken over resumes after its last finished model step, paying no model call twice.
 */
export async function openModelJournal(
  pool: Pool,
  taskId: string,
): Promise<{ wrap: (client: ModelClient) => ModelClient; replayed: number }> {
  const { rows } = await pool.query<{ reply: string }>(
    `SELECT reply FROM ${SCHEMA}.model_journal WHERE task_id = $1 ORDER BY reply_index`,
    [taskId],
  );
  const prior = rows.map((row) => JSON.parse(row.reply) as ModelReply);
  return {
    replayed: prior.length,
    wrap: (live) => {
      let index = 0;
      return {
        model: live.model,
        baseURL: live.baseURL,
        // A task replaying its replies needs no endpoint until they run out.
        check: (signal) => (prior.length > 0 ? Promise.resolve() : live.check(signal)),
        async complete(messages, signal) {
          const at = index;
          index += 1;
          const recorded = prior[at];
          if (recorded !== undefined) return recorded;
          const reply = await live.complete(messages, signal);
          await pool.query(`INSERT INTO ${SCHEMA}.model_journal (task_id, reply_index, reply) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
            taskId,
            at,
            JSON.stringify(reply),
          ]);
          return reply;
        },
      };
    },
  };
}
