// τ²-bench's retail domain as an eval suite. Data, tasks and policy: sierra-research/tau2-bench at
// commit a2c0247, MIT licence (data/LICENSE, data/SOURCE.md); the tools are ported in retail-db.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineSuite, suiteEnvironment, type CallOutcome, type EvalCall, type EvalTask } from 'agent-spaces';
import { RETAIL_TOOLS, RETAIL_WRITE_TOOLS, type RetailDb } from './retail-db.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const data = (file: string) => readFileSync(path.join(here, 'data', file), 'utf8');

interface Tau2Task {
  id: string;
  user_scenario: { instructions: { reason_for_call?: string; known_info?: string; unknown_info?: string; task_instructions?: string } };
  evaluation_criteria: { actions: { name: string; arguments: Record<string, unknown> }[] | null; communicate_info: string[] | null };
}

const dbText = data('db.json');
const freshDb = (): RetailDb => JSON.parse(dbText) as RetailDb;
const environment = suiteEnvironment<RetailDb>('tau2-retail');

/**
 * τ² plays the customer with an LLM; without one, the agent gets the customer's whole request and what
 * they know up front, with their confirmation of every action that matches it.
 */
export function instructionOf(task: Tau2Task): string {
  const { reason_for_call, known_info, unknown_info, task_instructions } = task.user_scenario.instructions;
  const parts = [
    'A customer of the store needs help. They cannot answer questions during this conversation, so everything they want and know is written below ("you" is the customer), and they have already confirmed (yes) every action that matches their request. Do what they ask within the policy, then give your final answer to them.',
    `Their request: ${reason_for_call ?? ''}`,
    known_info ? `What they know: ${known_info}` : '',
    unknown_info ? `What they do not know: ${unknown_info}` : '',
    task_instructions && task_instructions.trim() !== '.' ? `How they behave: ${task_instructions}` : '',
  ];
  return parts.filter(Boolean).join('\n');
}

const tasks: EvalTask[] = (JSON.parse(data('tasks.json')) as Tau2Task[]).map((task) => ({
  id: task.id,
  instruction: instructionOf(task),
  calls: (task.evaluation_criteria.actions ?? []).map((action) => ({ name: action.name, arguments: action.arguments })),
  expectedOutputs: task.evaluation_criteria.communicate_info ?? [],
}));

function apply(db: RetailDb, call: EvalCall): CallOutcome {
  const tool = Object.hasOwn(RETAIL_TOOLS, call.name) ? RETAIL_TOOLS[call.name] : undefined;
  if (!tool) return { ok: false, error: `unknown tool ${call.name}` };
  try {
    // A copy, so later calls changing the same object do not change what this one returned.
    return { ok: true, value: structuredClone(tool(db, call.arguments)) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** JSON with sorted keys: equal databases give equal text (τ² compares hashes of the dumped models). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** The records (orders, users, products) whose content differs between two databases. */
export function differingRecords(actual: RetailDb, expected: RetailDb): string[] {
  const out: string[] = [];
  for (const table of ['orders', 'users', 'products'] as const) {
    const ids = new Set([...Object.keys(actual[table]), ...Object.keys(expected[table])]);
    for (const id of ids) if (canonicalJson(actual[table][id]) !== canonicalJson(expected[table][id])) out.push(`${table}["${id}"]`);
  }
  return out;
}

const splits = JSON.parse(data('split_tasks.json')) as Record<string, string[]>;

export default defineSuite({
  name: 'tau2-retail',
  description:
    "τ²-bench retail domain (sierra-research/tau2-bench a2c0247, MIT): 114 customer-service tasks on a store database; success = τ²'s DB check plus the answer's required facts",
  policy: data('policy.md'),
  spaceDir: here,
  module: 'retail',
  writeCalls: RETAIL_WRITE_TOOLS,
  // "At the beginning of the conversation, you have to authenticate the user identity" (policy.md).
  firstCalls: new Set(['find_user_id_by_email', 'find_user_id_by_name_zip']),
  tasks,
  splits,
  reset() {
    environment.set(freshDb());
  },
  replay(calls) {
    const db = freshDb();
    return calls.map((call) => apply(db, call));
  },
  check(task, answer) {
    const gold = freshDb();
    // As τ²: a ground-truth call that fails is skipped (it logs a warning), the rest still count.
    for (const call of task.calls) apply(gold, call);
    const reasons: string[] = [];
    let actual: RetailDb;
    try {
      actual = environment.get();
    } catch (error) {
      return { success: false, reasons: [error instanceof Error ? error.message : String(error)] };
    }
    if (canonicalJson(actual) !== canonicalJson(gold)) {
      const differing = differingRecords(actual, gold);
      reasons.push(
        `the final database differs from the ground truth's in ${differing.length} record${differing.length === 1 ? '' : 's'}: ${differing.slice(0, 5).join(', ')}${differing.length > 5 ? ', …' : ''}`,
      );
    }
    const said = answer.toLowerCase().replaceAll(',', '');
    for (const expected of task.expectedOutputs) {
      if (!said.includes(expected.toLowerCase())) reasons.push(`the final answer does not say "${expected}"`);
    }
    return { success: reasons.length === 0, reasons };
  },
});
