import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTypeScript, unwrapDefault } from '../config/index.js';
import { errorMessage } from '../core/index.js';
import { EvalError } from './eval-error.js';

/** One ground-truth call: a function of the suite's capability module by its tool name, and its arguments. */
export interface EvalCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A task of a suite: what the agent is told, and what a correct run does. */
export interface EvalTask {
  id: string;
  /** The whole request, as the agent receives it (every arm gets this same text). */
  instruction: string;
  /** The ground-truth calls, in order (the oracle plays them; the check may replay them). */
  calls: EvalCall[];
  /** Strings the final answer must contain (case-insensitive, commas ignored), if any. */
  expectedOutputs: string[];
}

/** What one call did, when replayed on fresh data. */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: string };

export interface CheckResult {
  success: boolean;
  /** Why not, in words (empty on success). */
  reasons: string[];
}

/**
 * A suite: a space (its folder holds the config and capabilities), its data and how to reset it, its
 * tasks, and its check. Written as `export default defineSuite({...})` in `<folder>/suite.ts`.
 */
export interface EvalSuite {
  name: string;
  /** One line on what the suite is and where it comes from (attribution, licence). */
  description: string;
  /** The system policy text every arm receives. */
  policy: string;
  /** The folder of the suite's space (its agent-spaces config). */
  spaceDir: string;
  /** The capability module the ground-truth calls go to (e.g. `retail`); the direct arm offers its functions. */
  module: string;
  /** Tool names of the calls that change data (the oracle keeps them in order). */
  writeCalls: ReadonlySet<string>;
  /** Tool names of calls every later call waits for (the policy's authentication), for the oracle's order. */
  firstCalls?: ReadonlySet<string>;
  tasks: readonly EvalTask[];
  /** Named subsets of task ids (e.g. τ²'s train/test split), usable as `--tasks split:test`. */
  splits?: Record<string, readonly string[]>;
  /**
   * Loads fresh data for `task`, the task about to run (a suite whose tasks share one starting state may
   * ignore it; one whose tasks start from their own state loads that).
   */
  reset(task: EvalTask): void;
  /** Replays calls on a fresh copy of the data (the live data is left alone) and says what each did. */
  replay(calls: readonly EvalCall[]): CallOutcome[];
  /** Checks the live data (after the agent's run) and the agent's final answer. */
  check(task: EvalTask, answer: string): CheckResult;
}

export function defineSuite(suite: EvalSuite): EvalSuite {
  return suite;
}

/** The suites shipped with the package, by name. */
export const BUNDLED_SUITES: readonly string[] = ['tau2-retail', 'bfcl-multi-turn'];

function bundledSuitesDir(): string | undefined {
  // eval/suite.ts in a checkout, dist/eval/suite.js in a build: look upwards for eval/suites/.
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = path.join(dir, 'suites');
    if (existsSync(path.join(candidate, BUNDLED_SUITES[0] ?? '', 'suite.ts'))) return candidate;
    const nested = path.join(dir, 'eval', 'suites');
    if (existsSync(path.join(nested, BUNDLED_SUITES[0] ?? '', 'suite.ts'))) return nested;
    dir = path.dirname(dir);
  }
  return undefined;
}

/** The folder a suite argument names: a bundled suite's name, or a folder holding `suite.ts`. */
export function resolveSuiteDir(suite: string, cwd = process.cwd()): string {
  const asPath = path.resolve(cwd, suite);
  if (existsSync(path.join(asPath, 'suite.ts'))) return asPath;
  if (BUNDLED_SUITES.includes(suite)) {
    const dir = bundledSuitesDir();
    if (dir) return path.join(dir, suite);
    throw new EvalError(
      'EVAL_SUITE_NOT_FOUND',
      `the bundled suite "${suite}" is not in this copy of the package (its folder eval/suites/${suite} is missing)`,
    );
  }
  throw new EvalError(
    'EVAL_SUITE_NOT_FOUND',
    `no suite "${suite}": not a bundled suite (${BUNDLED_SUITES.join(', ')}) and ${asPath} holds no suite.ts`,
  );
}

/** Loads `<folder>/suite.ts` and checks that its default export is a suite. */
export async function loadSuite(suite: string, cwd = process.cwd()): Promise<EvalSuite> {
  const dir = resolveSuiteDir(suite, cwd);
  const file = path.join(dir, 'suite.ts');
  let loaded: unknown;
  try {
    loaded = unwrapDefault(((await importTypeScript(file)) as { default?: unknown }).default);
  } catch (error) {
    throw new EvalError('EVAL_SUITE_INVALID', `${file} could not be loaded: ${errorMessage(error)}`, { cause: error });
  }
  const problems = suiteProblems(loaded);
  if (problems.length > 0)
    throw new EvalError(
      'EVAL_SUITE_INVALID',
      `${file}: the default export is not a suite (export default defineSuite({...})): ${problems.join('; ')}`,
    );
  return loaded as EvalSuite;
}

function suiteProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return ['no default export object'];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ['name', 'description', 'policy', 'spaceDir', 'module'])
    if (typeof record[key] !== 'string') problems.push(`${key} must be a string`);
  for (const key of ['reset', 'replay', 'check']) if (typeof record[key] !== 'function') problems.push(`${key} must be a function`);
  if (!Array.isArray(record.tasks)) problems.push('tasks must be an array');
  if (!(record.writeCalls instanceof Set)) problems.push('writeCalls must be a Set');
  return problems;
}

/**
 * Picks tasks by a selector: ids and ranges separated by commas (`0,3,10-14`), `split:<name>`, or
 * `first:<n>`. Unknown ids are an error naming them.
 */
export function selectTasks(suite: EvalSuite, selector: string | undefined): EvalTask[] {
  if (selector === undefined || selector.trim() === '' || selector === 'all') return [...suite.tasks];
  const byId = new Map(suite.tasks.map((task) => [task.id, task]));
  const picked: EvalTask[] = [];
  const unknown: string[] = [];
  const add = (id: string) => {
    const task = byId.get(id);
    if (!task) unknown.push(id);
    else if (!picked.includes(task)) picked.push(task);
  };
  for (const part of selector
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const split = /^split:(.+)$/.exec(part);
    const first = /^first:(\d+)$/.exec(part);
    const range = /^(\d+)-(\d+)$/.exec(part);
    if (split) {
      const ids = suite.splits?.[split[1] ?? ''];
      if (!ids)
        throw new EvalError(
          'EVAL_BAD_TASKS',
          `--tasks: suite ${suite.name} has no split "${split[1] ?? ''}"${suite.splits ? ` (it has ${Object.keys(suite.splits).join(', ')})` : ' (it has none)'}`,
        );
      ids.forEach(add);
    } else if (first) {
      suite.tasks.slice(0, Number(first[1])).forEach((task) => add(task.id));
    } else if (range) {
      for (let id = Number(range[1]); id <= Number(range[2]); id++) add(String(id));
    } else {
      add(part);
    }
  }
  if (unknown.length > 0)
    throw new EvalError('EVAL_BAD_TASKS', `--tasks: suite ${suite.name} has no task${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  return picked;
}
