import { randomBytes } from 'node:crypto';
import { DurableError } from './durable-error.js';
import { APPROVALS_CHANNEL, SCHEMA, type Pool } from './store.js';
import { writerOf, type StoreWriter } from './store-writer.js';

export type ApprovalStatus = 'pending' | 'approved' | 'denied';

/** A persisted approval: asked by a durable run's call, decided by anyone who reaches the store. */
export interface StoredApproval {
  id: string;
  runId: string;
  callKey: string;
  capability: string;
  function: string;
  params: unknown;
  message: string;
  status: ApprovalStatus;
  reason?: string;
  /** After it, a pending approval is denied. */
  deadline?: string;
  createdAt: string;
  decidedAt?: string;
}

interface Row {
  id: string;
  run_id: string;
  call_key: string;
  capability: string;
  function: string;
  params: string;
  message: string;
  status: ApprovalStatus;
  reason: string | null;
  deadline: Date | null;
  created_at: Date;
  decided_at: Date | null;
}

const COLUMNS = 'id, run_id, call_key, capability, function, params, message, status, reason, deadline, created_at, decided_at';
export const DEADLINE_REASON = 'its deadline passed before anyone decided';

function fromRow(row: Row): StoredApproval {
  return {
    id: row.id,
    runId: row.run_id,
    callKey: row.call_key,
    capability: row.capability,
    function: row.function,
    params: JSON.parse(row.params) as unknown,
    message: row.message,
    status: row.status,
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.deadline === null ? {} : { deadline: row.deadline.toISOString() }),
    createdAt: row.created_at.toISOString(),
    ...(row.decided_at === null ? {} : { decidedAt: row.decided_at.toISOString() }),
  };
}

/**
 * The approval asked for by one call of a run (by its journal key): created pending the first time,
 * the same row every later time (a replay after a restart finds the decision, or waits for it).
 */
export async function requestStoredApproval(
  target: StoreWriter | Pool,
  request: { runId: string; callKey: string; capability: string; function: string; params: unknown; message: string; deadlineMs?: number },
): Promise<StoredApproval> {
  const id = randomBytes(5).toString('hex');
  const deadline = request.deadlineMs === undefined ? null : new Date(Date.now() + request.deadlineMs);
  const writer = writerOf(target);
  const { pool } = writer;
  // Through the one writer: the message and parameters a person reads are redacted like every stored row.
  await writer.write(
    `INSERT INTO ${SCHEMA}.approvals (id, run_id, call_key, capability, function, params, message, status, deadline)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $8) ON CONFLICT (run_id, call_key) DO NOTHING`,
    [
      id,
      request.runId,
      request.callKey,
      request.capability,
      request.function,
      { json: request.params ?? {} },
      { text: request.message },
      deadline,
    ],
  );
  await expireApprovals(pool);
  const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM ${SCHEMA}.approvals WHERE run_id = $1 AND call_key = $2`, [
    request.runId,
    request.callKey,
  ]);
  const row = rows[0];
  if (row === undefined)
    throw new DurableError(
      'APPROVAL_NOT_FOUND',
      `the approval of run ${request.runId} for ${request.capability}.${request.function} vanished from the store`,
    );
  return fromRow(row);
}

/** Denies every pending approval whose deadline passed (and tells those waiting). */
export async function expireApprovals(pool: Pool): Promise<void> {
  await pool.query(
    `WITH expired AS (
       UPDATE ${SCHEMA}.approvals SET status = 'denied', reason = $1, decided_at = now()
       WHERE status = 'pending' AND deadline IS NOT NULL AND deadline <= now() RETURNING id)
     SELECT pg_notify($2, id) FROM expired`,
    [DEADLINE_REASON, APPROVALS_CHANNEL],
  );
}

export async function getStoredApproval(pool: Pool, id: string): Promise<StoredApproval | undefined> {
  const { rows } = await pool.query<Row>(`SELECT ${COLUMNS} FROM ${SCHEMA}.approvals WHERE id = $1`, [id]);
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

/** Approvals, newest first: pending ones only unless `all`; of one run only with `runId`. */
export async function listStoredApprovals(pool: Pool, options: { all?: boolean; runId?: string } = {}): Promise<StoredApproval[]> {
  await expireApprovals(pool);
  const conditions = [...(options.all === true ? [] : ["status = 'pending'"]), ...(options.runId === undefined ? [] : ['run_id = $1'])];
  const { rows } = await pool.query<Row>(
    `SELECT ${COLUMNS} FROM ${SCHEMA}.approvals ${conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`} ORDER BY created_at DESC LIMIT 500`,
    options.runId === undefined ? [] : [options.runId],
  );
  return rows.map(fromRow);
}

/**
 * Decides a pending approval by its id (or a prefix naming one approval) and wakes the worker
 * waiting on it. Throws when no approval has that id, more than one starts with it, or it was
 * decided already (the decision stands).
 */
export async function decideStoredApproval(
  pool: Pool,
  idOrPrefix: string,
  decision: { approved: boolean; reason?: string },
): Promise<StoredApproval> {
  // Ids are lowercase hex: anything else (a LIKE wildcard, an empty prefix) names no approval.
  if (!/^[0-9a-f]{1,20}$/.test(idOrPrefix))
    throw new DurableError(
      'APPROVAL_NOT_FOUND',
      `no approval has the id "${idOrPrefix}": ids are hexadecimal, see agent-spaces approvals list`,
    );
  await expireApprovals(pool);
  const { rows: matches } = await pool.query<Row>(`SELECT ${COLUMNS} FROM ${SCHEMA}.approvals WHERE id LIKE $1 ORDER BY id LIMIT 3`, [
    `${idOrPrefix}%`,
  ]);
  if (matches.length === 0)
    throw new DurableError('APPROVAL_NOT_FOUND', `no approval has the id "${idOrPrefix}": see agent-spaces approvals list`);
  const exact = matches.find((row) => row.id === idOrPrefix);
  const match = exact ?? (matches.length === 1 ? matches[0] : undefined);
  if (match === undefined)
    throw new DurableError(
      'APPROVAL_NOT_FOUND',
      `"${idOrPrefix}" names more than one approval (${matches.map((row) => row.id).join(', ')}): give more of the id`,
    );
  const reason = decision.reason ?? (decision.approved ? 'approved with agent-spaces approvals' : 'denied with agent-spaces approvals');
  const { rows } = await pool.query<Row>(
    `WITH decided AS (
       UPDATE ${SCHEMA}.approvals SET status = $2, reason = $3, decided_at = now() WHERE id = $1 AND status = 'pending' RETURNING ${COLUMNS})
     SELECT decided.*, pg_notify($4, decided.id) FROM decided`,
    [match.id, decision.approved ? 'approved' : 'denied', reason, APPROVALS_CHANNEL],
  );
  if (rows[0] === undefined) {
    const current = fromRow(match);
    throw new DurableError(
      'APPROVAL_DECIDED',
      `approval ${match.id} was already decided: ${current.status}${current.reason ? ` (${current.reason})` : ''}`,
    );
  }
  return fromRow(rows[0]);
}

/** A run that ended leaves no approval waiting: its pending ones are denied (nobody can use them). */
export async function closeRunApprovals(pool: Pool, runId: string): Promise<void> {
  await pool.query(
    `WITH closed AS (
       UPDATE ${SCHEMA}.approvals SET status = 'denied', reason = 'the run ended before anyone decided', decided_at = now()
       WHERE run_id = $1 AND status = 'pending' RETURNING id)
     SELECT pg_notify($2, id) FROM closed`,
    [runId, APPROVALS_CHANNEL],
  );
}
