import type { EvalTask } from '../suite.js';
import { codeSources, levels, neededLater, programs, type PlannedCall } from './plan-calls.js';

/** A function of the suite's module as each arm names it. */
export interface OracleFunction {
  /** The tool name (τ²'s `get_order_details`). */
  toolName: string;
  /** The catalog id the planner calls and searches return (`retail.getOrderDetails`). */
  id: string;
  /** The function name in code (`getOrderDetails`). */
  function: string;
  /** The module's import name in code (`retail`), and its module (`retail`). */
  namespace: string;
  module: string;
  /** The direct arm's function-tool name. */
  directName: string;
}

export type Arm = 'direct' | 'code' | 'planner';

export interface OracleToolCall {
  name: string;
  arguments: unknown;
}

/** One reply of the oracle: tool calls, or a final text. */
export interface OracleTurn {
  content?: string;
  toolCalls?: OracleToolCall[];
  /** Set on the turn after the search: which ids the search result must show, else a fallback turn is added. */
  expectIds?: string[];
}

/** The final answer: says what the task's check needs said. */
export function finalAnswer(task: EvalTask): string {
  return task.expectedOutputs.length > 0 ? `Your request is handled. ${task.expectedOutputs.join('; ')}.` : 'Your request is handled.';
}

function lookup(functions: readonly OracleFunction[], toolName: string): OracleFunction {
  const fn = functions.find((candidate) => candidate.toolName === toolName);
  if (!fn) throw new Error(`the oracle knows no function with the tool name "${toolName}" in the suite's module`);
  return fn;
}

/**
 * The search that names the functions a task needs. Its detail level follows the planner prompt's rule:
 * "summary" (signatures) when no argument is a nested object, "full" (whole declarations) otherwise —
 * and "full" when a program picks a value out of a result in code (the summary does not show the
 * fields of nested results it picks by).
 */
function searchFor(
  planned: readonly PlannedCall[],
  functions: readonly OracleFunction[],
): { query: string; ids: string[]; detail: 'summary' | 'full' } {
  const ids = [...new Set(planned.map((entry) => lookup(functions, entry.call.name).id))];
  const structured = (value: unknown): boolean => typeof value === 'object' && value !== null;
  const flat = planned.every((entry) =>
    Object.values(entry.call.arguments).every((value) => (Array.isArray(value) ? !value.some(structured) : !structured(value))),
  );
  const groups = programs(planned);
  const picksInCode = groups.some((group) =>
    group.some((entry) => Object.values(entry.selected).some((pick) => group.some((other) => other.index === pick.from))),
  );
  return {
    query: ids.map((id) => id.slice(id.indexOf('.') + 1)).join(' '),
    ids,
    detail: flat && !picksInCode ? 'summary' : 'full',
  };
}

const literal = (value: unknown): string => JSON.stringify(value);

/** A call's arguments as a TypeScript expression, results of calls of this program passed on by name. */
function argumentsExpression(entry: PlannedCall, inProgram: ReadonlySet<number>): string {
  const build = (value: unknown, at: string): string => {
    const source = entry.passThrough[at];
    if (source !== undefined && inProgram.has(source)) return `r${source}`;
    const pick = entry.selected[at];
    if (pick !== undefined && inProgram.has(pick.from)) return `r${pick.from}${pick.expression}`;
    if (Array.isArray(value)) return `[${value.map((item, i) => build(item, `${at}[${i}]`)).join(', ')}]`;
    if (value && typeof value === 'object') {
      return `{ ${Object.entries(value as Record<string, unknown>)
        .map(([key, inner]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : literal(key)}: ${build(inner, at ? `${at}.${key}` : key)}`)
        .join(', ')} }`;
    }
    return literal(value);
  };
  return build(entry.call.arguments, '');
}

/**
 * One program for a group of calls: level by level, independent calls in `Promise.all`; a call the
 * oracle knows fails is caught so the program still reports the others; it returns the results a
 * later step must read, and the failures.
 */
export function programFor(
  group: readonly PlannedCall[],
  all: readonly PlannedCall[],
  functions: readonly OracleFunction[],
  task: EvalTask,
): string {
  const inProgram = new Set(group.map((entry) => entry.index));
  const namespaces = new Map<string, string>();
  const lines: string[] = [];
  const invoke = (entry: PlannedCall) => {
    const fn = lookup(functions, entry.call.name);
    namespaces.set(fn.namespace, fn.module);
    const call = `${fn.namespace}.${fn.function}(${argumentsExpression(entry, inProgram)})`;
    return entry.outcome.ok
      ? call
      : `${call}.catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }))`;
  };
  for (const level of levels(group)) {
    if (level.length === 1) {
      const [entry] = level as [PlannedCall];
      lines.push(`const r${entry.index} = await ${invoke(entry)};`);
    } else {
      lines.push(
        `const [${level.map((entry) => `r${entry.index}`).join(', ')}] = await Promise.all([\n  ${level.map(invoke).join(',\n  ')},\n]);`,
      );
    }
  }
  const returned = group.filter((entry) => mustReturn(entry, all, inProgram, task));
  const imports = [...namespaces].map(([namespace, module]) => `import { ${namespace} } from '@capabilities/${module}';`);
  const result =
    returned.length > 0
      ? `{ ${returned.map((entry) => `r${entry.index}`).join(', ')} }`
      : `'done: ${group.length} call${group.length === 1 ? '' : 's'}'`;
  return [...imports, ...lines, `export default ${result};`].join('\n');
}

/** Whether a program returns this call's result: a failure, a result a later step reads or passes on, or one the answer states. */
function mustReturn(entry: PlannedCall, all: readonly PlannedCall[], inProgram: ReadonlySet<number>, task: EvalTask): boolean {
  if (!entry.outcome.ok || neededLater(all, entry.index) || passedOnLater(all, entry.index, inProgram)) return true;
  const text = JSON.stringify(entry.outcome.value)?.toLowerCase().replaceAll(',', '') ?? '';
  return task.expectedOutputs.some((expected) => text.includes(expected.toLowerCase()));
}

/** A later program passes this call's result on, or picks from it: the model must have seen it. */
function passedOnLater(all: readonly PlannedCall[], index: number, inProgram: ReadonlySet<number>): boolean {
  return all.some((entry) => !inProgram.has(entry.index) && codeSources(entry).includes(index));
}

/** The oracle's replies for one task in one arm, in order (the search check may add one). */
export function scriptFor(arm: Arm, task: EvalTask, planned: readonly PlannedCall[], functions: readonly OracleFunction[]): OracleTurn[] {
  const answer = finalAnswer(task);
  if (arm === 'direct') {
    const turns: OracleTurn[] = levels(planned).map((level) => ({
      toolCalls: level.map((entry) => ({ name: lookup(functions, entry.call.name).directName, arguments: entry.call.arguments })),
    }));
    return [...turns, { content: answer }];
  }
  const groups = programs(planned);
  const search = searchFor(planned, functions);
  const head: OracleTurn[] =
    planned.length === 0
      ? []
      : [
          {
            toolCalls: [
              {
                name: 'search_tools',
                arguments: { query: search.query, detail_level: search.detail, limit: Math.max(search.ids.length, 1) },
              },
            ],
          },
        ];
  if (arm === 'code') {
    const runs = groups.map((group): OracleTurn => ({
      toolCalls: [{ name: 'execute_code', arguments: { code: programFor(group, planned, functions, task) } }],
    }));
    if (head[0]) head[0].expectIds = search.ids;
    return [...head, ...runs, { content: answer }];
  }
  // The planner's rules: call_tool for a single call or independent calls whose results must all be read;
  // run_code for calls that depend on each other without anyone reading the results in between.
  const steps = groups.map((group): OracleTurn => {
    const chained = group.some((entry) => codeSources(entry).some((source) => group.some((other) => other.index === source)));
    const oneLevel = new Set(group.map((entry) => entry.level)).size === 1;
    // Independent calls whose results all need reading go direct; when some need no reading, one run
    // keeps them out of the conversation ("large data stays out of this conversation").
    const inGroup = new Set(group.map((entry) => entry.index));
    const allRead = group.length === 1 || group.every((entry) => mustReturn(entry, planned, inGroup, task));
    if (!chained && oneLevel && allRead) {
      return {
        toolCalls: group.map((entry) => ({
          name: 'call_tool',
          arguments: { name: lookup(functions, entry.call.name).id, arguments: entry.call.arguments },
        })),
      };
    }
    return { toolCalls: [{ name: 'run_code', arguments: { code: programFor(group, planned, functions, task) } }] };
  });
  if (head[0]) head[0].expectIds = search.ids;
  return [...head, ...steps, { toolCalls: [{ name: 'finish', arguments: { summary: answer } }] }];
}
