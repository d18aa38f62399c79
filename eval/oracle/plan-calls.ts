import type { CallOutcome, EvalCall, EvalTask } from '../suite.js';

/**
 * How the ground-truth calls of a task depend on each other, found from the calls, their replayed
 * outcomes and the task's text — the order a model that makes no mistakes would need:
 * - **data**: an argument value (a string, or a number inside a `calculate`-like expression) that the
 *   task's text does not contain but an earlier call's result does: the call needs that result. When
 *   the value *is* the earlier result (a user id returned by a look-up), a program can pass it on
 *   without anyone reading it (`passThrough`); otherwise someone must read the result and choose
 *   (an item among a product's variants) — a point of judgement;
 * - **first calls** (the suite's authentication, e.g. τ²'s "authenticate first"): every later call
 *   waits for them;
 * - **writes** keep their order among themselves, and a call touching what an earlier write changed
 *   (a shared id) waits for it;
 * - **retries**: after a call that fails, a later call of the same function waits for it (the model
 *   learns from the failure).
 */
export interface PlannedCall {
  index: number;
  call: EvalCall;
  outcome: CallOutcome;
  /** 1 + the deepest call it waits for; calls of one level are independent of each other. */
  level: number;
  /** Earlier calls whose result must be read (by the model) before this call can be written. */
  judgement: number[];
  /** Earlier calls whose whole result is one of this call's arguments: path → call index. */
  passThrough: Record<string, number>;
  /**
   * Argument values a program picks out of an earlier result in code, without anyone reading it: path →
   * the earlier call and the TypeScript that selects the value from its result (`.items.find((x) => x.name
   * === "Mechanical Keyboard")!.product_id`). See `selectInCode`.
   */
  selected: Record<string, { from: number; expression: string }>;
  /** Every earlier call this one waits for. */
  after: number[];
}

export interface PlanOptions {
  writeCalls: ReadonlySet<string>;
  /** Calls every later call waits for (τ² retail: finding the user id). */
  firstCalls?: ReadonlySet<string>;
  /**
   * Functions whose results are typed: a program can pick values only out of these (out of an
   * `unknown` result the type-check refuses it). Absent: every function's.
   */
  typedResults?: ReadonlySet<string>;
}

/** Every string and number leaf of a value, as text. */
function leaves(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (typeof value === 'number') out.add(String(value));
  else if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      // Keys are data too (a user's payment methods and a product's variants are keyed by id).
      out.add(key);
      leaves(inner, out);
    }
  }
  return out;
}

/** The argument leaves of a call with their paths (`item_ids[1]`). */
function argumentLeaves(args: unknown, at = ''): { path: string; value: string }[] {
  if (typeof args === 'string') return [{ path: at, value: args }];
  if (typeof args === 'number') return [{ path: at, value: String(args) }];
  if (Array.isArray(args)) return args.flatMap((item, i) => argumentLeaves(item, `${at}[${i}]`));
  if (args && typeof args === 'object')
    return Object.entries(args as Record<string, unknown>).flatMap(([key, inner]) => argumentLeaves(inner, at ? `${at}.${key}` : key));
  return [];
}

/** Numbers inside an expression such as "54.04 - 41.64", when the whole string is not a value of its own. */
const numbersIn = (text: string): string[] => (/^[\d\s.+\-*/()]+$/.test(text) ? (text.match(/\d+(?:\.\d+)?/g) ?? []) : []);

/**
 * The task's plan. Picking values in code (`selected`) needs the results' types (a "full" search, a
 * larger answer kept for every later turn), so a model that makes no mistakes does it only when it
 * saves a program; otherwise every such value is read and chosen, as before.
 */
export function planCalls(task: EvalTask, outcomes: readonly CallOutcome[], options: PlanOptions): PlannedCall[] {
  const picking = planWith(task, outcomes, options, true);
  const reading = planWith(task, outcomes, options, false);
  return programs(picking).length < programs(reading).length ? picking : reading;
}

function planWith(task: EvalTask, outcomes: readonly CallOutcome[], options: PlanOptions, pickInCode: boolean): PlannedCall[] {
  const text = task.instruction.toLowerCase();
  const known = (value: string) => value.length === 0 || text.includes(value.toLowerCase());
  const resultLeaves = outcomes.map((outcome) => (outcome.ok ? leaves(outcome.value) : new Set<string>()));
  const planned: PlannedCall[] = [];
  task.calls.forEach((call, index) => {
    const outcome = outcomes[index] ?? { ok: false, error: 'not replayed' };
    const after = new Set<number>();
    const judgement = new Set<number>();
    const passThrough: Record<string, number> = {};
    const selected: PlannedCall['selected'] = {};
    for (const { path, value } of argumentLeaves(call.arguments)) {
      if (known(value)) continue;
      const whole = planned.findIndex(
        (earlier) => earlier.outcome.ok && typeof earlier.outcome.value === 'string' && earlier.outcome.value === value,
      );
      if (whole >= 0) {
        passThrough[path] = whole;
        after.add(whole);
        continue;
      }
      // Picked from the first result that holds it (the one a reader would read): the order stays the same.
      const holder = resultLeaves.findIndex((set, j) => j < index && set.has(value));
      // The first result holding it echoes what its call was given (a cancel reason): no result held it
      // before, so the model wrote it itself and writes it again.
      if (holder >= 0 && argumentLeaves(task.calls[holder]?.arguments).some((leaf) => leaf.value === value)) continue;
      const typed = holder >= 0 && (options.typedResults?.has(task.calls[holder]?.name ?? '') ?? true);
      const pick = pickInCode && typed ? selectFrom(planned[holder], value, text) : undefined;
      if (pick) {
        selected[path] = pick;
        after.add(pick.from);
        continue;
      }
      const parts = numbersIn(value);
      for (const needed of parts.length > 0 ? parts.filter((part) => !known(part)) : [value]) {
        const source = resultLeaves.findIndex((set, j) => j < index && set.has(needed));
        if (source >= 0) {
          judgement.add(source);
          after.add(source);
        }
      }
    }
    const ids = new Set(argumentLeaves(call.arguments).map((leaf) => leaf.value));
    for (const earlier of planned) {
      const first = options.firstCalls?.has(earlier.call.name) ?? false;
      const write = options.writeCalls.has(earlier.call.name);
      const sharesId = argumentLeaves(earlier.call.arguments).some((leaf) => ids.has(leaf.value));
      const retry = !earlier.outcome.ok && earlier.call.name === call.name;
      if (first || (write && (options.writeCalls.has(call.name) || sharesId))) after.add(earlier.index);
      if (retry) {
        after.add(earlier.index);
        judgement.add(earlier.index);
      }
    }
    // What a failed call said must be read before going on (another e-mail, another id).
    for (const j of after) if (planned[j] && !planned[j].outcome.ok) judgement.add(j);
    const level = 1 + Math.max(0, ...[...after].map((j) => planned[j]?.level ?? 0));
    planned.push({
      index,
      call,
      outcome,
      level,
      judgement: [...judgement].sort((a, b) => a - b),
      passThrough,
      selected,
      after: [...after].sort((a, b) => a - b),
    });
  });
  return planned;
}

/** How a program picks `value` out of an earlier call's result, if it can (`selectInCode`). */
function selectFrom(earlier: PlannedCall | undefined, value: string, text: string): { from: number; expression: string } | undefined {
  if (!earlier?.outcome.ok) return undefined;
  const expression = selectInCode(earlier.outcome.value, value, text);
  return expression === undefined ? undefined : { from: earlier.index, expression };
}

const property = (key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

/**
 * How a program picks `value` out of a result without anyone reading it, or `undefined` when picking it
 * takes a choice only someone reading can make. Along the path to the value, a property is fixed; an
 * array element is picked when it is the only one, or by a text field whose value the task's text
 * names and no other element shares (the order's item called "Mechanical Keyboard"). Keys of records
 * (payment methods, a product's variants by id) are choices, and so are elements nothing in the text
 * names: someone must read those.
 */
export function selectInCode(result: unknown, value: string, text: string): string | undefined {
  if (typeof result === 'string' || typeof result === 'number') return String(result) === value ? '' : undefined;
  if (Array.isArray(result)) {
    for (const [index, element] of result.entries()) {
      const rest = selectInCode(element, value, text);
      if (rest === undefined) continue;
      if (result.length === 1) return `[0]!${rest}`;
      const by = namingField(result, index, text);
      if (by) return `.find((x) => x${property(by.field)} === ${JSON.stringify(by.value)})!${rest}`;
    }
    return undefined;
  }
  if (result && typeof result === 'object') {
    const record = result as Record<string, unknown>;
    // A record keyed by ids is a choice among its keys, unless a value under a named property is meant.
    if (Object.keys(record).some((key) => /\d/.test(key))) return undefined;
    for (const [key, inner] of Object.entries(record)) {
      const rest = selectInCode(inner, value, text);
      if (rest !== undefined) return `${property(key)}${rest}`;
    }
  }
  return undefined;
}

/** A text field of `array[index]` whose value the task's text names and no other element of the array has. */
function namingField(array: readonly unknown[], index: number, text: string): { field: string; value: string } | undefined {
  const element = array[index];
  if (!element || typeof element !== 'object') return undefined;
  for (const [field, fieldValue] of Object.entries(element as Record<string, unknown>)) {
    if (typeof fieldValue !== 'string' || fieldValue.length < 3 || !text.includes(fieldValue.toLowerCase())) continue;
    const shared = array.some(
      (other, j) => j !== index && other && typeof other === 'object' && (other as Record<string, unknown>)[field] === fieldValue,
    );
    if (!shared) return { field, value: fieldValue };
  }
  return undefined;
}

/** The calls level by level: what a direct-calling model sends together, one model turn per level. */
export function levels(planned: readonly PlannedCall[]): PlannedCall[][] {
  const out: PlannedCall[][] = [];
  for (const entry of planned) (out[entry.level - 1] ??= []).push(entry);
  return out.filter((level) => level.length > 0);
}

/**
 * The calls cut into programs: a program ends where a later call needs a result someone must read
 * (a point of judgement) or a failure the model must see; within a program, calls run level by level,
 * the independent ones together.
 */
export function programs(planned: readonly PlannedCall[]): PlannedCall[][] {
  const groups: PlannedCall[][] = [];
  let current: PlannedCall[] = [];
  for (const entry of [...planned].sort((a, b) => a.level - b.level || a.index - b.index)) {
    const inCurrent = new Set(current.map((c) => c.index));
    if (entry.judgement.some((j) => inCurrent.has(j))) {
      groups.push(current);
      current = [];
    }
    current.push(entry);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** The calls of a later group that read this call's result: its result must come back to the model. */
export function neededLater(planned: readonly PlannedCall[], index: number): boolean {
  return planned.some((entry) => entry.judgement.includes(index));
}

/** The earlier calls a call's arguments come from without anyone reading them: passed on whole, or picked in code. */
export function codeSources(entry: PlannedCall): number[] {
  return [...Object.values(entry.passThrough), ...Object.values(entry.selected).map((pick) => pick.from)];
}
