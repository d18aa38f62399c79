import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ARMS, type Arm } from './arms/arm-types.js';
import { EvalError } from './eval-error.js';
import type { RunSettings, TaskResultRecord } from './run-eval.js';

// A run folder is read as hostile input (the studio serves whatever lies under the eval folder): every
// name is checked before it becomes a path, every file is sized (lstat: no symlinks followed) before it
// is read, and every record is checked field by field. A bad file is named, never a crash.

/** A run folder's name: what `--out`'s last part or the default `<suite>-<time>` looks like. */
export const EVAL_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** Largest run.json read. */
export const MAX_SETTINGS_BYTES = 256 * 1024;
/** Largest result file read (one arm on one task; a few KB in practice). */
export const MAX_RESULT_BYTES = 256 * 1024;
/** Largest transcript read (a 13-call τ² task's code transcript is about 60 KB). */
export const MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024;
/** Result files read per arm at most. */
export const MAX_RESULT_FILES = 20_000;
/** Bytes of result files read per run at most. */
export const MAX_RESULTS_BYTES = 64 * 1024 * 1024;

export interface EvalRunFolder {
  dir: string;
  settings: RunSettings;
  results: TaskResultRecord[];
  /** Files that could not be used (each names the file and what was wrong); the rest are read. */
  problems: string[];
}

/** The run folders directly under `evalDir` (names only; not read). A missing folder has none. */
export async function listEvalRunIds(evalDir: string): Promise<string[]> {
  const entries = await readdir(evalDir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory() && EVAL_RUN_ID.test(entry.name)).map((entry) => entry.name);
}

/** The folder of run `id` under `evalDir`, after checking the id is a plain folder name. */
export function evalRunDir(evalDir: string, id: string): string {
  if (!EVAL_RUN_ID.test(id) || id === '.' || id === '..')
    throw new EvalError(
      'EVAL_RUN_FOLDER',
      `"${id.slice(0, 140)}" is not an eval run id (a folder name under ${evalDir}: letters, digits, "_", "-", ".")`,
    );
  return path.join(evalDir, id);
}

/** A file the run folder lacks (a 404 to the studio, not a bad request). */
export class EvalFileMissingError extends EvalError {
  constructor(file: string) {
    super('EVAL_RUN_FOLDER', `${file} does not exist`);
  }
}

/** A file's text, refused when it is not a regular file (a symlink included) or larger than `max`. */
async function readCapped(file: string, max: number): Promise<string> {
  const info = await lstat(file).catch(() => undefined);
  if (!info) throw new EvalFileMissingError(file);
  if (!info.isFile()) throw new EvalError('EVAL_RUN_FOLDER', `${file} is not a regular file (links are not followed)`);
  if (info.size > max) throw new EvalError('EVAL_RUN_FOLDER', `${file} is ${info.size} bytes, over the ${max} bytes read at most`);
  return readFile(file, 'utf8');
}

async function readJsonCapped(file: string, max: number): Promise<unknown> {
  const text = await readCapped(file, max);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new EvalError('EVAL_RUN_FOLDER', `${file} is not JSON: ${(error as Error).message}`);
  }
}

type Check = (value: unknown) => boolean;
const isString: Check = (value) => typeof value === 'string';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isCount: Check = (value) => Number.isInteger(value) && (value as number) >= 0;
const isBoolean: Check = (value) => typeof value === 'boolean';
const isStrings: Check = (value) => Array.isArray(value) && value.every(isString);
const isArms: Check = (value) => Array.isArray(value) && value.length > 0 && value.every((arm) => ARMS.includes(arm as Arm));
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of `record` that are missing or of the wrong kind, as `"name" (expected)`. */
function wrongFields(record: Record<string, unknown>, fields: Record<string, [Check, string]>): string[] {
  return Object.entries(fields).flatMap(([name, [check, expected]]) => (check(record[name]) ? [] : [`"${name}" (${expected})`]));
}

const SETTINGS_FIELDS: Record<string, [Check, string]> = {
  suite: [isString, 'a string'],
  arms: [isArms, `a list of ${ARMS.join(', ')}`],
  model: [isString, 'a string'],
  taskIds: [isStrings, 'a list of strings'],
  repeat: [(value) => isCount(value) && (value as number) >= 1, 'a whole number ≥ 1'],
  budget: [isObject, 'an object'],
  priceAs: [isString, 'a string'],
  startedAt: [isString, 'a string'],
};

const RESULT_FIELDS: Record<string, [Check, string]> = {
  arm: [(value) => ARMS.includes(value as Arm), ARMS.join(' or ')],
  taskId: [isString, 'a string'],
  repetition: [(value) => isCount(value) && (value as number) >= 1, 'a whole number ≥ 1'],
  calls: [isCount, 'a whole number'],
  success: [isBoolean, 'true or false'],
  reasons: [isStrings, 'a list of strings'],
  answer: [isString, 'a string'],
  turns: [isCount, 'a whole number'],
  promptTokens: [isNumber, 'a number'],
  completionTokens: [isNumber, 'a number'],
  tokensCounted: [isBoolean, 'true or false'],
  toolCalls: [isCount, 'a whole number'],
  codeRuns: [isCount, 'a whole number'],
  searches: [isCount, 'a whole number'],
  wallMs: [isNumber, 'a number'],
  costUsd: [isNumber, 'a number'],
};

/** `run.json` of a run folder, checked field by field. */
export async function readEvalSettings(dir: string): Promise<RunSettings> {
  const folder = await lstat(dir).catch(() => undefined);
  if (!folder) throw new EvalFileMissingError(dir);
  if (!folder.isDirectory()) throw new EvalError('EVAL_RUN_FOLDER', `${dir} is not a folder (links are not followed)`);
  const file = path.join(dir, 'run.json');
  const value = await readJsonCapped(file, MAX_SETTINGS_BYTES);
  if (!isObject(value)) throw new EvalError('EVAL_RUN_FOLDER', `${file} must hold an object (the run's settings)`);
  const wrong = wrongFields(value, SETTINGS_FIELDS);
  if (wrong.length > 0) throw new EvalError('EVAL_RUN_FOLDER', `${file}: wrong or missing ${wrong.join(', ')}`);
  return value as unknown as RunSettings;
}

/**
 * A run folder: its settings (a bad run.json throws) and every result that can be read; a result file
 * that cannot (too large, not JSON, wrong fields, not of this run) is left out and named in `problems`.
 */
export async function readEvalRunFolder(dir: string): Promise<EvalRunFolder> {
  const settings = await readEvalSettings(dir);
  const tasks = new Set(settings.taskIds);
  const results: TaskResultRecord[] = [];
  const problems: string[] = [];
  let bytes = 0;
  for (const arm of settings.arms) {
    const folder = path.join(dir, 'results', arm);
    const names = (await readdir(folder).catch(() => [] as string[])).filter((name) => name.endsWith('.json')).sort();
    if (names.length > MAX_RESULT_FILES)
      problems.push(`${folder} holds ${names.length} result files: only the first ${MAX_RESULT_FILES} are read`);
    for (const name of names.slice(0, MAX_RESULT_FILES)) {
      const file = path.join(folder, name);
      try {
        const size = (await lstat(file)).size;
        if (bytes + size > MAX_RESULTS_BYTES) {
          problems.push(`${folder}: stopped reading at ${name}: the run's results pass ${MAX_RESULTS_BYTES} bytes`);
          break;
        }
        bytes += size;
        results.push(checkResult(file, await readJsonCapped(file, MAX_RESULT_BYTES), arm, tasks, settings.repeat));
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
  }
  return { dir, settings, results, problems };
}

function checkResult(file: string, value: unknown, arm: Arm, tasks: Set<string>, repeat: number): TaskResultRecord {
  if (!isObject(value)) throw new EvalError('EVAL_RUN_FOLDER', `${file} must hold an object (one arm's result on one task)`);
  const wrong = wrongFields(value, RESULT_FIELDS);
  if (wrong.length > 0) throw new EvalError('EVAL_RUN_FOLDER', `${file}: wrong or missing ${wrong.join(', ')}`);
  const record = value as unknown as TaskResultRecord;
  if (record.arm !== arm) throw new EvalError('EVAL_RUN_FOLDER', `${file}: "arm" is ${record.arm}, but the file lies in results/${arm}`);
  if (!tasks.has(record.taskId))
    throw new EvalError('EVAL_RUN_FOLDER', `${file}: task "${record.taskId.slice(0, 100)}" is not one of the run's tasks (run.json)`);
  if (record.repetition > repeat)
    throw new EvalError('EVAL_RUN_FOLDER', `${file}: repetition ${record.repetition} is over the run's ${repeat}`);
  return record;
}

/**
 * One task's transcript in one arm (chat messages for direct and code, the planner's events for the
 * planner), after checking that the arm, task and repetition are the run's own.
 */
export async function readEvalTranscript(
  dir: string,
  settings: RunSettings,
  arm: string,
  taskId: string,
  repetition: number,
): Promise<unknown[]> {
  if (!settings.arms.includes(arm as Arm))
    throw new EvalError('EVAL_RUN_FOLDER', `arm "${arm.slice(0, 40)}" is not one of this run's arms (${settings.arms.join(', ')})`);
  if (!settings.taskIds.includes(taskId))
    throw new EvalError('EVAL_RUN_FOLDER', `task "${taskId.slice(0, 100)}" is not one of this run's tasks`);
  if (!Number.isInteger(repetition) || repetition < 1 || repetition > settings.repeat)
    throw new EvalError(
      'EVAL_RUN_FOLDER',
      `repetition ${String(repetition).slice(0, 20)} is not one of this run's (1 to ${settings.repeat})`,
    );
  const file = path.join(dir, 'transcripts', arm, `${encodeURIComponent(taskId)}#${repetition}.json`);
  const value = await readJsonCapped(file, MAX_TRANSCRIPT_BYTES);
  if (!Array.isArray(value)) throw new EvalError('EVAL_RUN_FOLDER', `${file} must hold a list (the messages or events of the task)`);
  return value;
}
