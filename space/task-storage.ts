import { defineTool, readSmallFile, ToolCallError, type JsonSchema, type ToolCallContext, type ToolDefinition } from '../core/index.js';

/** The module of the stored-results capability: `@capabilities/task-storage`. */
export const TASK_STORAGE_MODULE = 'task-storage';

/** Most characters (of JSON) one `read` returns; larger values are read in pages. */
export const TASK_STORAGE_MAX_CHARS = 200_000;

/** One result a task stored whole (redacted) because it was too large to show the model. */
export interface StoredResult {
  /** The `storageRef` of its summary: the file the host wrote. */
  ref: string;
  label: string;
  step: number;
  /** Characters of its JSON. */
  chars: number;
}

/** Who may read what: each run (or direct call) of a task sees only that task's stored results. */
export interface TaskStorage {
  /**
   * Lets calls made with `runId` read and list `results` (a live map: results stored later are seen
   * too). Returns the function that closes it again, when the run or call is over.
   */
  open(runId: string, results: ReadonlyMap<string, StoredResult>): () => void;
}

type JsonKind = 'array' | 'object' | 'string' | 'number' | 'boolean' | 'null';

interface ReadArguments {
  ref: string;
  path?: string;
  parse?: boolean;
  offset?: number;
  limit?: number;
}

const STORED_RESULT = {
  type: 'object',
  properties: {
    ref: { type: 'string', description: 'The storageRef of the summary' },
    label: { type: 'string', description: 'What was stored: the tool id, or "run_code result"' },
    step: { type: 'integer', description: 'The step that stored it' },
    chars: { type: 'integer', description: 'Characters of its JSON' },
  },
  required: ['ref', 'label', 'step', 'chars'],
  additionalProperties: false,
} as const satisfies JsonSchema;

const READ_PARAMETERS = {
  type: 'object',
  properties: {
    ref: { type: 'string', description: 'The storageRef from a summary of this task' },
    path: {
      type: 'string',
      description: 'Dot-separated keys and indices to a part of the value, e.g. "items" or "data.rows.0" (default: the whole value)',
    },
    parse: {
      type: 'boolean',
      description: "The stored value is a string holding JSON (an MCP tool's text result): parse it first, then apply path and paging",
    },
    offset: { type: 'integer', minimum: 0, description: 'First array item (or string character) to return (default 0)' },
    limit: { type: 'integer', minimum: 1, description: 'Most array items (or characters) to return (default: as many as fit in one read)' },
  },
  required: ['ref'],
  additionalProperties: false,
} as const satisfies JsonSchema;

const READ_RESULT = {
  type: 'object',
  properties: {
    ref: { type: 'string' },
    path: { type: 'string' },
    kind: { enum: ['array', 'object', 'string', 'number', 'boolean', 'null'], description: 'What the value at path is' },
    value: { description: 'An array: the page of items; a string: the page of characters; otherwise the whole value' },
    total: { type: 'integer', description: 'Arrays: items in all; strings: characters in all' },
    offset: { type: 'integer', description: 'Where this page starts' },
    nextOffset: { type: ['integer', 'null'], description: 'Where the next page starts (pass it as offset), or null after the last page' },
  },
  required: ['ref', 'path', 'kind', 'value'],
  additionalProperties: false,
} as const satisfies JsonSchema;

/**
 * The stored-results capability and the registry that scopes it. A large result the planner summarised
 * is stored whole under the task's run folder; code reads it back page by page with
 * `read({ ref: storageRef })`, and only results of its own task: a ref is looked up among the results
 * opened for the calling run, never used as a path from the caller.
 */
export function createTaskStorage(): { storage: TaskStorage; definition: ToolDefinition } {
  const runs = new Map<string, OpenRun>();
  const storage: TaskStorage = {
    open(runId, results) {
      const run: OpenRun = { results, loaded: new Map() };
      runs.set(runId, run);
      return () => {
        if (runs.get(runId) === run) runs.delete(runId);
      };
    },
  };
  const runOf = (context: ToolCallContext): OpenRun => runs.get(context.runId) ?? { results: new Map(), loaded: new Map() };

  const definition = defineTool({
    name: TASK_STORAGE_MODULE,
    description:
      'Large results stored during this task (their summaries carry a storageRef): list them and read them in pages. Only inside a planner task (executeTask); elsewhere there are none.',
    functions: {
      list: {
        description: 'The results this task has stored so far, oldest first.',
        parameters: { type: 'object', properties: {}, additionalProperties: false },
        returns: { type: 'array', items: STORED_RESULT },
        handler: (_params: never, context) => [...runOf(context).results.values()],
      },
      read: {
        description: `Reads a stored result, or the part of it at path. An array comes in pages of items and a string in pages of characters (offset, limit; follow nextOffset); any other value whole, when its JSON fits in ${withThousands(TASK_STORAGE_MAX_CHARS)} characters.`,
        parameters: READ_PARAMETERS,
        returns: READ_RESULT,
        handler: (params: never, context) => readStored(params as ReadArguments, runOf(context), context),
      },
    },
  });
  return { storage, definition };
}

/** 200000 → "200,000", without Intl: its first use loads ICU's number data (~20 ms of every space's start). */
function withThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The results one run may read, and the values it read so far (each file is read and parsed once a run). */
interface OpenRun {
  results: ReadonlyMap<string, StoredResult>;
  loaded: Map<string, Promise<unknown>>;
}

async function readStored(args: ReadArguments, run: OpenRun, context: ToolCallContext): Promise<unknown> {
  const target = { capability: context.capability, function: context.function };
  const { results } = run;
  const stored = results.get(args.ref);
  if (stored === undefined) {
    const known = [...results.keys()];
    throw new ToolCallError(
      'FORBIDDEN',
      `task-storage: "${args.ref}" is not a result stored by this task; ${known.length === 0 ? 'it has stored none' : `its refs: ${known.map((ref) => `"${ref}"`).join(', ')}`}`,
      target,
    );
  }
  // A hundred parallel reads of one result share one read and parse of its file.
  let loading = run.loaded.get(stored.ref);
  if (loading === undefined) {
    loading = loadStored(stored, target);
    run.loaded.set(stored.ref, loading);
    loading.catch(() => run.loaded.delete(stored.ref));
  }
  let value = await loading;
  if (args.parse) {
    if (typeof value !== 'string')
      throw new ToolCallError(
        'INVALID_ARGUMENTS',
        `task-storage: parse: the stored value is ${kindOf(value)}, not a string holding JSON; leave parse out`,
        target,
      );
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      throw new ToolCallError(
        'INVALID_ARGUMENTS',
        'task-storage: parse: the stored string is not JSON; read it as text without parse',
        target,
      );
    }
  }
  const path = args.path ?? '';
  value = valueAt(value, path, target);
  const base = { ref: args.ref, path, kind: kindOf(value) };
  const offset = args.offset ?? 0;
  if (Array.isArray(value)) return { ...base, ...arrayPage(value, offset, args.limit) };
  if (typeof value === 'string') {
    const end = Math.min(value.length, offset + Math.min(args.limit ?? TASK_STORAGE_MAX_CHARS, TASK_STORAGE_MAX_CHARS));
    return { ...base, value: value.slice(offset, end), total: value.length, offset, nextOffset: end < value.length ? end : null };
  }
  const chars = JSON.stringify(value)?.length ?? 0;
  if (chars > TASK_STORAGE_MAX_CHARS) {
    throw new ToolCallError(
      'INVALID_ARGUMENTS',
      `task-storage: the ${base.kind} at path "${path}" is ${chars} characters, over the ${TASK_STORAGE_MAX_CHARS} of one read: read a part of it with path (${describeKeys(value)})`,
      target,
    );
  }
  return { ...base, value };
}

/**
 * The stored value, read from the file the host wrote, and only if it is still that file: a regular
 * file (not a symlink swapped in), of the size the host wrote (UTF-8 of `chars` UTF-16 units: at least
 * `chars`, at most three bytes each). A program whose std fs workspace holds the run folder could
 * otherwise grow the file to its write quota and have the host parse it on every read.
 */
async function loadStored(stored: StoredResult, target: { capability: string; function: string }): Promise<unknown> {
  const text = await readSmallFile(stored.ref, stored.chars * 3);
  if (text === undefined || Buffer.byteLength(text) < stored.chars) {
    throw new ToolCallError(
      'FORBIDDEN',
      `task-storage: the stored result "${stored.ref}" was removed, replaced or changed since the task stored it (${stored.chars} characters); it is not read`,
      target,
    );
  }
  return JSON.parse(text) as unknown;
}

/** The items from `offset` that fit in one read (at least one), and where the next page starts. */
function arrayPage(
  items: unknown[],
  offset: number,
  limit: number | undefined,
): { value: unknown[]; total: number; offset: number; nextOffset: number | null } {
  const page: unknown[] = [];
  let chars = 2;
  for (let index = offset; index < items.length && (limit === undefined || page.length < limit); index++) {
    chars += (JSON.stringify(items[index])?.length ?? 4) + 1;
    if (chars > TASK_STORAGE_MAX_CHARS && page.length > 0) break;
    page.push(items[index]);
  }
  const next = offset + page.length;
  return { value: page, total: items.length, offset, nextOffset: next < items.length ? next : null };
}

function valueAt(root: unknown, path: string, target: { capability: string; function: string }): unknown {
  let value = root;
  const walked: string[] = [];
  for (const key of path === '' ? [] : path.split('.')) {
    const next =
      Array.isArray(value) && /^\d+$/.test(key)
        ? value[Number(key)]
        : isRecord(value) && Object.hasOwn(value, key)
          ? value[key]
          : undefined;
    if (next === undefined) {
      const at = walked.length === 0 ? 'the stored value' : `"${walked.join('.')}"`;
      throw new ToolCallError('INVALID_ARGUMENTS', `task-storage: path "${path}": ${at} has no "${key}" (${describeKeys(value)})`, target);
    }
    walked.push(key);
    value = next;
  }
  return value;
}

/** The keys (or length) of a value, for messages that say what path could be. */
function describeKeys(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length} items: use an index`;
  if (!isRecord(value)) return `it is ${kindOf(value)}`;
  const keys = Object.entries(value)
    .slice(0, 20)
    .map(([key, child]) => `${key}: ${Array.isArray(child) ? `array of ${child.length}` : kindOf(child)}`);
  return `keys ${keys.join(', ')}${Object.keys(value).length > 20 ? ', …' : ''}`;
}

function kindOf(value: unknown): JsonKind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' ? type : 'object';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
