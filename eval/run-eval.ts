import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../config/index.js';
import { errorMessage } from '../core/index.js';
import { DEFAULT_PRICES, findPrice, priceUsage, resolveBudget, type Budget } from '../planner/index.js';
import { createSpace, type Space } from '../space/index.js';
import { ARMS, type Arm, type ArmInput, type ArmModel, type ArmOutcome } from './arms/arm-types.js';
import { openCodeSurface, runCodeArm, type CodeSurface } from './arms/code-arm.js';
import { directFunctions, runDirectArm } from './arms/direct-arm.js';
import { runPlannerArm } from './arms/planner-arm.js';
import { loadTokenCounter, type TokenCounter } from './count-tokens.js';
import { EvalError } from './eval-error.js';
import { planCalls } from './oracle/plan-calls.js';
import type { OracleFunction } from './oracle/oracle-script.js';
import { ORACLE_MODEL, startOracleServer, type OracleServer } from './oracle/oracle-server.js';
import { buildReport, type EvalReport } from './report.js';
import { loadSuite, selectTasks, type EvalSuite, type EvalTask } from './suite.js';

/** The budget of every arm on every task unless overridden (τ² tasks take up to 13 calls). */
export const EVAL_BUDGET: Readonly<Budget> = Object.freeze({ maxSteps: 30, maxToolCalls: 60, maxCodeRuns: 10, maxLlmCostUsd: 2 });
/** The price table model used for the oracle's cost (it has no price of its own). */
export const ORACLE_PRICED_AS = 'gpt-5-mini';

export interface RunEvalOptions {
  /** A bundled suite's name or a folder holding suite.ts. */
  suite: string;
  arms?: readonly Arm[];
  /** `oracle` (default) or a model id of the endpoint at `baseURL`. */
  model?: string;
  baseURL?: string;
  apiKey?: string;
  /** Task selector (`0,3,10-14`, `split:test`, `first:5`); default all. */
  tasks?: string;
  repeat?: number;
  /** The run folder (default `.agent-spaces/eval/<suite>-<time>` under `cwd`). */
  out?: string;
  /** Go on with the run in `out`: its settings are kept, finished tasks are skipped. */
  resume?: boolean;
  budget?: Partial<Budget>;
  /** Model whose planner price the cost is computed with (default: the model; the oracle: ORACLE_PRICED_AS). */
  priceAs?: string;
  cwd?: string;
  signal?: AbortSignal;
  /** One line per finished task (and a few about the run), for stderr. */
  onProgress?: (line: string) => void;
}

/** What `run.json` holds: the settings a resumed run keeps. */
export interface RunSettings {
  suite: string;
  suiteDir: string;
  arms: Arm[];
  model: string;
  baseURL?: string;
  taskIds: string[];
  repeat: number;
  budget: Budget;
  priceAs: string;
  startedAt: string;
}

/** One arm on one task (one repetition), as written to `results/<arm>/<task>#<n>.json`. */
export interface TaskResultRecord extends Omit<ArmOutcome, 'transcript'> {
  arm: Arm;
  taskId: string;
  repetition: number;
  /** Ground-truth calls of the task. */
  calls: number;
  success: boolean;
  reasons: string[];
  /** Oracle only: functions its first search did not show. */
  searchMisses?: string[];
  wallMs: number;
  costUsd: number;
}

export interface EvalRun {
  dir: string;
  settings: RunSettings;
  results: TaskResultRecord[];
  report: EvalReport;
  /** True when the run stopped early (signal): `--resume` goes on. */
  interrupted: boolean;
}

const resultFile = (dir: string, arm: Arm, taskId: string, repetition: number) =>
  path.join(dir, 'results', arm, `${encodeURIComponent(taskId)}#${repetition}.json`);
const transcriptFile = (dir: string, arm: Arm, taskId: string, repetition: number) =>
  path.join(dir, 'transcripts', arm, `${encodeURIComponent(taskId)}#${repetition}.json`);

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, file);
}

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

function checkArms(arms: readonly string[]): Arm[] {
  const unknown = arms.filter((arm) => !ARMS.includes(arm as Arm));
  if (unknown.length > 0)
    throw new EvalError(
      'EVAL_BAD_OPTION',
      `--arms: unknown arm${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (the arms are ${ARMS.join(', ')})`,
    );
  if (arms.length === 0) throw new EvalError('EVAL_BAD_OPTION', `--arms: name at least one of ${ARMS.join(', ')}`);
  return [...new Set(arms)] as Arm[];
}

async function settingsOf(options: RunEvalOptions, suite: EvalSuite, dir: string): Promise<RunSettings> {
  const file = path.join(dir, 'run.json');
  if (options.resume) {
    if (!existsSync(file))
      throw new EvalError('EVAL_RUN_FOLDER', `--resume: ${dir} holds no run.json (give --out the folder of the run to go on with)`);
    const stored = await readJson<RunSettings>(file);
    const differs: string[] = [];
    if (stored.suite !== suite.name) differs.push(`suite ${suite.name} (the run's is ${stored.suite})`);
    if (options.arms && options.arms.join(',') !== stored.arms.join(','))
      differs.push(`--arms ${options.arms.join(',')} (the run's are ${stored.arms.join(',')})`);
    if (options.model && options.model !== stored.model) differs.push(`--model ${options.model} (the run's is ${stored.model})`);
    if (options.repeat !== undefined && options.repeat !== stored.repeat)
      differs.push(`--repeat ${options.repeat} (the run's is ${stored.repeat})`);
    if (
      options.tasks !== undefined &&
      selectTasks(suite, options.tasks)
        .map((t) => t.id)
        .join(',') !== stored.taskIds.join(',')
    )
      differs.push(`--tasks ${options.tasks} (the run has other tasks)`);
    if (differs.length > 0)
      throw new EvalError('EVAL_RUN_FOLDER', `--resume keeps the settings of the run in ${dir}; these differ: ${differs.join('; ')}`);
    return stored;
  }
  if (existsSync(path.join(dir, 'results')))
    throw new EvalError('EVAL_RUN_FOLDER', `${dir} already holds results: pass --resume to go on with that run, or another --out`);
  const model = options.model ?? ORACLE_MODEL;
  if (model !== ORACLE_MODEL && !options.baseURL)
    throw new EvalError(
      'EVAL_BAD_OPTION',
      `--model ${model} needs --base-url (an OpenAI-compatible endpoint); without one, use --model oracle`,
    );
  const repeat = options.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new EvalError('EVAL_BAD_OPTION', `--repeat must be a whole number ≥ 1 (got ${String(options.repeat)})`);
  const priceAs = options.priceAs ?? (model === ORACLE_MODEL ? ORACLE_PRICED_AS : model);
  const settings: RunSettings = {
    suite: suite.name,
    suiteDir: suite.spaceDir,
    arms: checkArms(options.arms ?? ARMS),
    model,
    ...(model !== ORACLE_MODEL && options.baseURL ? { baseURL: options.baseURL } : {}),
    taskIds: selectTasks(suite, options.tasks).map((task) => task.id),
    repeat,
    budget: resolveBudget({ ...EVAL_BUDGET, ...options.budget }),
    priceAs,
    startedAt: new Date().toISOString(),
  };
  if (settings.taskIds.length === 0)
    throw new EvalError('EVAL_BAD_TASKS', `--tasks ${options.tasks ?? ''} selects no task of suite ${suite.name}`);
  await writeAtomically(file, `${JSON.stringify(settings, null, 2)}\n`);
  return settings;
}

/** Every result written so far in a run folder. */
export async function readResults(dir: string): Promise<TaskResultRecord[]> {
  const results: TaskResultRecord[] = [];
  for (const arm of ARMS) {
    const folder = path.join(dir, 'results', arm);
    if (!existsSync(folder)) continue;
    for (const name of (await readdir(folder)).filter((file) => file.endsWith('.json')).sort())
      results.push(await readJson<TaskResultRecord>(path.join(folder, name)));
  }
  return results;
}

/**
 * Runs every selected task of a suite in each arm against one model (the oracle by default), writing
 * each finished task's result to the run folder as it goes (so a stopped run resumes where it stopped),
 * and the reports (report.md, report.json) at the end — also when stopped by the signal.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalRun> {
  const cwd = options.cwd ?? process.cwd();
  const progress = options.onProgress ?? (() => undefined);
  const suite = await loadSuite(options.suite, cwd);
  const dir = path.resolve(
    cwd,
    options.out ?? path.join('.agent-spaces', 'eval', `${suite.name}-${new Date().toISOString().replace(/[:.]/g, '-')}`),
  );
  if (options.resume && !options.out) throw new EvalError('EVAL_RUN_FOLDER', '--resume needs --out <the run folder to go on with>');
  const settings = await settingsOf(options, suite, dir);
  const tasks = settings.taskIds.map((id) => selectTasks(suite, id)[0] as EvalTask);

  const config = await loadConfig({ cwd: suite.spaceDir });
  const space: Space = await createSpace({ config: { ...config, outDir: path.join(dir, 'build') } });
  /** What `openHarness` started, closed here whether or not it finished. */
  const opened: Opened = {};
  let interrupted = false;
  try {
    progress(
      `eval ${suite.name}: ${tasks.length} task${tasks.length === 1 ? '' : 's'} × ${settings.arms.join(', ')}${settings.repeat > 1 ? ` × ${settings.repeat}` : ''}, model ${settings.model}; run folder ${dir}`,
    );
    const harness = await openHarness(space, suite, settings, options, opened);
    const price = findPrice(settings.priceAs, DEFAULT_PRICES);
    interrupted = await runTasks({ options, suite, settings, dir, tasks, space, harness, price, progress });
  } finally {
    await opened.surface?.close().catch(() => undefined);
    await opened.oracle?.close();
    await space.close();
  }
  const results = await readResults(dir);
  const report = buildReport(settings, results, suite);
  await writeAtomically(path.join(dir, 'report.json'), `${JSON.stringify({ settings, report, results }, null, 2)}\n`);
  await writeAtomically(path.join(dir, 'report.md'), report.markdown);
  if (interrupted) progress(`stopped: ${results.length} results kept in ${dir}; go on with --resume --out ${dir}`);
  return { dir, settings, results, report, interrupted };
}

/** The servers a run starts for its arms: the oracle (the default model) and the code arm's MCP surface. */
interface Opened {
  oracle?: OracleServer;
  surface?: CodeSurface;
}

/** What every arm of a run shares: the model it talks to, the token counter, and the suite's functions as the oracle plans them. */
interface Harness extends Opened {
  model: ArmModel;
  counter: TokenCounter;
  functions: OracleFunction[];
  /** The tool names of the suite's functions whose results are typed (not `unknown`): a program can pick values out of those. */
  typedResults: ReadonlySet<string>;
}

/** Builds the suite's space and opens what the arms share; what it starts is put in `opened` as it goes, for the caller to close. */
async function openHarness(
  space: Space,
  suite: EvalSuite,
  settings: RunSettings,
  options: RunEvalOptions,
  opened: Opened,
): Promise<Harness> {
  const build = await space.build();
  if (build.errors.length > 0)
    throw new EvalError(
      'EVAL_SUITE_INVALID',
      `the space of suite ${suite.name} (${suite.spaceDir}) did not build: ${build.errors
        .map((failure) => JSON.stringify(failure))
        .join('; ')
        .slice(0, 1000)}`,
    );
  const counter = await loadTokenCounter();
  let model: ArmModel;
  if (settings.model === ORACLE_MODEL) {
    opened.oracle = await startOracleServer();
    model = { model: ORACLE_MODEL, baseURL: opened.oracle.baseURL };
  } else {
    model = {
      model: settings.model,
      baseURL: options.baseURL ?? settings.baseURL ?? '',
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    };
  }
  const specs = await space.capabilities();
  const catalog = await space.catalog();
  const direct = directFunctions(specs, suite.module);
  const functions: OracleFunction[] = catalog.functions
    .filter((entry) => entry.module === suite.module)
    .map((entry) => ({
      toolName: entry.toolName,
      id: entry.id,
      function: entry.function,
      namespace: entry.namespace,
      module: entry.module,
      directName: direct.find((fn) => fn.id === entry.id)?.name ?? entry.toolName,
    }));
  if (settings.arms.includes('code')) opened.surface = await openCodeSurface(space);
  const typedResults = new Set(
    catalog.functions
      .filter((entry) => entry.module === suite.module && !/\): Promise<unknown>$/.test(entry.signature))
      .map((entry) => entry.toolName),
  );
  return { ...opened, model, counter, functions, typedResults };
}

/** One run's task loop: what it runs, with what, and where it writes. */
interface TaskLoop {
  options: RunEvalOptions;
  suite: EvalSuite;
  settings: RunSettings;
  dir: string;
  tasks: EvalTask[];
  space: Space;
  harness: Harness;
  price: ReturnType<typeof findPrice>;
  progress: (line: string) => void;
}

/**
 * Runs each repetition of each task in each arm, skipping those with a result already (a resumed run),
 * and keeps each result as it finishes. Returns whether the signal stopped it.
 */
async function runTasks(loop: TaskLoop): Promise<boolean> {
  const { settings, tasks, dir, options } = loop;
  const total = tasks.length * settings.arms.length * settings.repeat;
  let done = 0;
  for (let repetition = 1; repetition <= settings.repeat; repetition++) {
    for (const task of tasks) {
      for (const arm of settings.arms) {
        done++;
        if (existsSync(resultFile(dir, arm, task.id, repetition))) continue;
        if (options.signal?.aborted) return true;
        const started = performance.now();
        const outcome = await runArm(loop, arm, task, repetition);
        // A task cut short is not a result: --resume runs it again.
        if (outcome === undefined || options.signal?.aborted) return true;
        await keepResult(loop, { arm, task, repetition, outcome, wallMs: performance.now() - started }, `[${done}/${total}]`);
      }
    }
  }
  return false;
}

/** One arm on one task, the oracle primed with the task's plan; `undefined` when the signal stopped it. A failure of the host is the outcome's error. */
async function runArm(loop: TaskLoop, arm: Arm, task: EvalTask, repetition: number): Promise<ArmOutcome | undefined> {
  const { suite, harness, options } = loop;
  suite.reset(task);
  if (harness.oracle)
    harness.oracle.begin(
      arm,
      task,
      planCalls(task, suite.replay(task.calls), {
        writeCalls: suite.writeCalls,
        ...(suite.firstCalls ? { firstCalls: suite.firstCalls } : {}),
        typedResults: harness.typedResults,
      }),
      harness.functions,
    );
  const input: ArmInput = {
    suite,
    task,
    space: loop.space,
    model: harness.model,
    budget: loop.settings.budget,
    counter: harness.counter,
    runDir: path.join(loop.dir, 'planner-runs', `${encodeURIComponent(task.id)}#${repetition}`),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  try {
    return arm === 'direct'
      ? await runDirectArm(input)
      : arm === 'code'
        ? await runCodeArm(input, harness.surface as CodeSurface)
        : await runPlannerArm(input);
  } catch (error) {
    if (options.signal?.aborted) return undefined;
    return {
      answer: '',
      turns: 0,
      promptTokens: 0,
      completionTokens: 0,
      tokensCounted: false,
      toolCalls: 0,
      codeRuns: 0,
      searches: 0,
      error: `the ${arm} arm failed on the host: ${errorMessage(error)}`,
      transcript: [],
    };
  }
}

/** Checks an arm's answer with the suite and writes its result and transcript to the run folder, with a progress line. */
async function keepResult(
  loop: TaskLoop,
  finished: { arm: Arm; task: EvalTask; repetition: number; outcome: ArmOutcome; wallMs: number },
  counter: string,
): Promise<void> {
  const { arm, task, repetition, outcome, wallMs } = finished;
  const { harness, price, dir, settings } = loop;
  const check = loop.suite.check(task, outcome.answer);
  const record: TaskResultRecord = {
    arm,
    taskId: task.id,
    repetition,
    calls: task.calls.length,
    success: !outcome.error && check.success,
    reasons: [...(outcome.error ? [outcome.error] : []), ...check.reasons],
    answer: outcome.answer,
    turns: outcome.turns,
    promptTokens: outcome.promptTokens,
    completionTokens: outcome.completionTokens,
    tokensCounted: outcome.tokensCounted,
    toolCalls: outcome.toolCalls,
    codeRuns: outcome.codeRuns,
    searches: outcome.searches,
    ...(harness.oracle && arm !== 'direct' ? { searchMisses: harness.oracle.searchMisses() } : {}),
    wallMs: Math.round(wallMs),
    costUsd: price ? priceUsage({ input: outcome.promptTokens, cachedInput: 0, output: outcome.completionTokens }, price) : 0,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
  await writeAtomically(transcriptFile(dir, arm, task.id, repetition), `${JSON.stringify(outcome.transcript, null, 1)}\n`);
  await writeAtomically(resultFile(dir, arm, task.id, repetition), `${JSON.stringify(record, null, 2)}\n`);
  loop.progress(
    `${counter} ${arm.padEnd(7)} task ${task.id}${settings.repeat > 1 ? ` #${repetition}` : ''}: ${record.success ? 'pass' : 'FAIL'}, ${record.turns} turns, ${record.promptTokens + record.completionTokens} tokens, ${record.toolCalls} calls, ${(wallMs / 1000).toFixed(1)} s${record.success ? '' : ` — ${record.reasons.join('; ')}`}`,
  );
}
