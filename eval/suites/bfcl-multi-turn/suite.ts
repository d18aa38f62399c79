// BFCL v4 multi-turn (base) as an eval suite: the 42 tasks whose classes are among VehicleControlAPI,
// TwitterAPI and MessageAPI. Questions, ground truth and function docs: ShishirPatil/gorilla at commit 6ea5797,
// Apache-2.0 (data/LICENSE, data/SOURCE.md); the three classes are ported in vehicle-control.ts, twitter.ts and message.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineSuite, suiteEnvironment, type CallOutcome, type EvalCall, type EvalTask } from 'agent-spaces';
import { BFCL_WRITE_FUNCTIONS, BfclWorld } from './bfcl-world.js';
import { callsOf, type BfclAnswer } from './ground-truth.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const jsonLines = <T>(file: string): T[] =>
  readFileSync(path.join(here, 'data', file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);

interface BfclQuestion {
  id: string;
  question: { role: string; content: string }[][];
  initial_config: Record<string, Record<string, unknown>>;
  involved_classes: string[];
}

const environment = suiteEnvironment<BfclWorld>('bfcl-multi-turn');

/** BFCL's task number: `multi_turn_base_52` → `52`. */
const taskNumber = (id: string): string => id.replace(/^multi_turn_base_/, '');

/**
 * BFCL gives the user's requests one turn at a time, each after the model has answered the last; here
 * the agent gets all turns up front, in order, as one request.
 */
export function instructionOf(question: BfclQuestion): string {
  const turns = question.question.map((turn) =>
    turn
      .filter((message) => message.role === 'user')
      .map((message) => message.content)
      .join('\n'),
  );
  return [
    'The user made these requests one after another. They cannot answer questions now: do all of them, in order, with the tools, then say briefly what you did.',
    ...turns.map((text, index) => `Request ${index + 1}: ${text}`),
  ].join('\n\n');
}

interface BfclTask extends EvalTask {
  question: BfclQuestion;
}

const questions = jsonLines<BfclQuestion>('BFCL_v4_multi_turn_base.json');
const answers = new Map(jsonLines<BfclAnswer>('possible_answer_BFCL_v4_multi_turn_base.json').map((answer) => [answer.id, answer]));

const freshWorld = (task: BfclTask) => new BfclWorld(task.id, task.question.initial_config, task.question.involved_classes);

const tasks: BfclTask[] = questions.map((question) => {
  const answer = answers.get(question.id);
  if (!answer) throw new Error(`BFCL task ${question.id} has no ground truth`);
  return {
    id: taskNumber(question.id),
    question,
    instruction: instructionOf(question),
    calls: callsOf(answer),
    expectedOutputs: [],
  };
});

const taskByCalls = new WeakMap<readonly EvalCall[], BfclTask>(tasks.map((task) => [task.calls, task]));

function apply(world: BfclWorld, call: EvalCall): CallOutcome {
  try {
    // A copy, so later calls changing the same object do not change what this one returned.
    return { ok: true, value: structuredClone(world.call(call.name, call.arguments)) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** JSON with sorted keys: equal states give equal text (Python compares dicts regardless of key order). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** `Class.attribute` for every public attribute whose value differs (BFCL's `_compare_instances`). */
export function differingAttributes(actual: Record<string, unknown>, expected: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const className of new Set([...Object.keys(actual), ...Object.keys(expected)])) {
    const a = (actual[className] ?? {}) as Record<string, unknown>;
    const e = (expected[className] ?? {}) as Record<string, unknown>;
    for (const attribute of new Set([...Object.keys(a), ...Object.keys(e)]))
      if (canonicalJson(a[attribute]) !== canonicalJson(e[attribute])) out.push(`${className}.${attribute}`);
  }
  return out;
}

const vehicleOnly = tasks.filter((task) => task.question.involved_classes.join() === 'VehicleControlAPI').map((task) => task.id);

const withClass = (className: string) => tasks.filter((task) => task.question.involved_classes.includes(className)).map((task) => task.id);

export default defineSuite({
  name: 'bfcl-multi-turn',
  description:
    "BFCL v4 multi-turn base (ShishirPatil/gorilla 6ea5797, Apache-2.0): the 42 tasks on a car's controls with a Twitter-like or a messaging API, all user turns given up front; success = BFCL's state check (every involved instance equals its state after the ground-truth calls)",
  policy: readFileSync(path.join(here, 'policy.md'), 'utf8'),
  spaceDir: here,
  module: 'bfcl',
  writeCalls: BFCL_WRITE_FUNCTIONS,
  tasks,
  splits: {
    vehicle: vehicleOnly,
    'vehicle+twitter': withClass('TwitterAPI'),
    'vehicle+message': withClass('MessageAPI'),
  },
  // Every task starts from its own initial configuration: the instances of the task about to run.
  reset(task: EvalTask) {
    environment.clear();
    const known = tasks.find((candidate) => candidate.id === task.id);
    if (!known) throw new Error(`reset: no task ${task.id} in the suite`);
    environment.set(freshWorld(known));
  },
  replay(calls) {
    const task = taskByCalls.get(calls) ?? tasks.find((candidate) => candidate.id === environment.get().taskId);
    if (!task) throw new Error('replay: these calls are not a task of the suite, and no task is loaded');
    const world = freshWorld(task);
    return calls.map((call) => apply(world, call));
  },
  check(task, _answer) {
    const known = tasks.find((candidate) => candidate.id === task.id);
    if (!known) return { success: false, reasons: [`no task ${task.id} in the suite`] };
    let actual: BfclWorld;
    try {
      actual = environment.get();
    } catch (error) {
      return { success: false, reasons: [error instanceof Error ? error.message : String(error)] };
    }
    if (actual.taskId !== known.id)
      return { success: false, reasons: [`the live instances are task ${actual.taskId}'s, not task ${known.id}'s`] };
    const gold = freshWorld(known);
    // As BFCL: a ground-truth call that fails leaves the state as it was; the rest still count.
    for (const call of known.calls) apply(gold, call);
    const differing = differingAttributes(actual.state(), gold.state());
    if (differing.length === 0) return { success: true, reasons: [] };
    return {
      success: false,
      reasons: [`the final state differs from the ground truth's in ${differing.join(', ')}`],
    };
  },
});
