import type { Catalog, CatalogEntry } from '../compiler/index.js';

export type DetailLevel = 'names' | 'summary' | 'full';

export interface SearchToolsOptions {
  detailLevel?: DetailLevel;
  /** Most results to return (default 10, at most 100). */
  limit?: number;
}

export interface ToolMatch {
  /** `<module>.<function>` — what `call_tool` takes and what code imports from `@capabilities/<module>`. */
  id: string;
  module: string;
  function: string;
  score: number;
  signature?: string;
  description?: string;
  requiresApproval?: boolean;
  /** Who may call it, when not both: `code` (only from a program) or `direct` (only as a direct call). */
  callers?: 'code' | 'direct';
  parameters?: string[];
  /**
   * `full` only: the function's whole TypeScript declaration from the build, with every parameter and
   * result type it uses (see `addDeclarations`).
   */
  declaration?: string;
}

export interface SearchToolsResult {
  query: string;
  /** With an empty query: the modules, so the model can see what exists. */
  modules?: { module: string; namespace: string; description: string; functions: number; standard?: true }[];
  matches: ToolMatch[];
  total: number;
}

/**
 * Ranks the catalog's functions for a query: whole-word hits in the function and module names weigh
 * most, then parameter names, then the description; ties break by id, so results are deterministic.
 * Only what the detail level asks for is returned, keeping prompts small however many tools exist.
 */
export function searchTools(catalog: Catalog, query: string, options: SearchToolsOptions = {}): SearchToolsResult {
  const detail = options.detailLevel ?? 'summary';
  const limit = Math.min(Math.max(options.limit ?? 10, 1), 100);
  const terms = tokenize(query);
  if (terms.length === 0) {
    // The space's own modules first: in a space of one tool, the standard library's seven must not bury it.
    return {
      query,
      modules: [...catalog.modules].sort((a, b) => Number(a.standard === true) - Number(b.standard === true)),
      matches: [],
      total: catalog.functions.length,
    };
  }
  const named = namedInQuery(query);
  const scored = prepare(catalog.functions)
    .map((words) => ({
      entry: words.entry,
      score: score(words, terms) * (words.entry.standard ? STANDARD_WEIGHT : 1),
      named: isNamed(words.entry, named),
    }))
    .filter((item) => item.score > 0 || item.named)
    .sort((a, b) => Number(b.named) - Number(a.named) || b.score - a.score || a.entry.id.localeCompare(b.entry.id));
  const seen = new Set<string>();
  const matches: ToolMatch[] = [];
  for (const { entry, score: value } of scored) {
    if (seen.has(entry.id)) continue;
    seen.add(entry.id);
    matches.push(present(entry, value, detail));
    if (matches.length >= limit) break;
  }
  return { query, matches, total: scored.length };
}

function present(entry: CatalogEntry, score: number, detail: DetailLevel): ToolMatch {
  const base = { id: entry.id, module: entry.module, function: entry.function, score: Math.round(score * 100) / 100 };
  if (detail === 'names') return base;
  const description = detail === 'summary' ? firstSentence(entry.description) : entry.description;
  return {
    ...base,
    signature: entry.signature,
    ...(description ? { description } : {}),
    ...(entry.requiresApproval ? { requiresApproval: true } : {}),
    ...(entry.callers === undefined ? {} : { callers: entry.callers }),
    ...(detail === 'full' ? { parameters: entry.parameters } : {}),
  };
}

/** An entry's words, split once: what every query is scored against. */
interface EntryWords {
  entry: CatalogEntry;
  name: Set<string>;
  module: Set<string>;
  parameters: Set<string>;
  description: string[];
  descriptionSet: Set<string>;
}

const preparedCatalogs = new WeakMap<readonly CatalogEntry[], EntryWords[]>();

/** The words of every entry of a catalog's function list, split on its first search and kept with it. */
function prepare(functions: readonly CatalogEntry[]): EntryWords[] {
  let prepared = preparedCatalogs.get(functions);
  if (prepared === undefined) {
    prepared = functions.map((entry) => {
      const description = tokenize(entry.description);
      return {
        entry,
        name: new Set(tokenize(`${entry.function} ${entry.toolName}`)),
        module: new Set(tokenize(`${entry.module} ${entry.namespace}`)),
        parameters: new Set(entry.parameters.flatMap(tokenize)),
        description,
        descriptionSet: new Set(description),
      };
    });
    preparedCatalogs.set(functions, prepared);
  }
  return prepared;
}

function score({ name, module, parameters, description, descriptionSet }: EntryWords, terms: string[]): number {
  let total = 0;
  let hits = 0;
  for (const term of terms) {
    let best = 0;
    if (name.has(term)) best = Math.max(best, 5);
    if (module.has(term)) best = Math.max(best, 3);
    if (parameters.has(term)) best = Math.max(best, 2);
    if (descriptionSet.has(term)) best = Math.max(best, 1.5);
    if (best === 0) {
      // Prefix matches ("sched" → schedule, "customers" → customer) count a little.
      const stem = term.length > 4 ? term.slice(0, -1) : term;
      if ([...name].some((word) => word.startsWith(stem) || (term.startsWith(word) && word.length > 3))) best = 2.5;
      else if ([...module].some((word) => word.startsWith(stem))) best = 1.5;
      else if (description.some((word) => word.startsWith(stem))) best = 0.75;
    }
    if (best > 0) hits++;
    total += best;
  }
  // Prefer entries that match more of the query's terms.
  return hits === 0 ? 0 : total * (hits / terms.length);
}

/**
 * A function the query names exactly — its function name, tool name or id as one word of the query
 * (`getOrderDetails`, `get_order_details`, `retail.getOrderDetails`) — ranks above every word match.
 * A model that already knows the names it needs (from the task, the declarations, an earlier search)
 * gets all of them in one search, however many words their names share with other functions
 * (measured with `agent-spaces eval`: docs/EVAL.md).
 */
function namedInQuery(query: string): Set<string> {
  return new Set(
    query
      .split(/[\s,;]+/)
      .map((word) => word.replace(/^[^\w]+|[^\w]+$/g, '').toLowerCase())
      .filter((word) => word.length > 0),
  );
}

function isNamed(entry: CatalogEntry, named: ReadonlySet<string>): boolean {
  return named.size > 0 && [entry.function, entry.toolName, entry.id].some((name) => named.has(name.toLowerCase()));
}

/**
 * The standard library's functions (std, task storage) weigh less than the space's own for the same
 * words: they are there in every space, and a query that fits a tool of the space means that tool.
 */
const STANDARD_WEIGHT = 0.8;

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'for',
  'to',
  'in',
  'on',
  'and',
  'or',
  'by',
  'with',
  'get',
  'all',
  'is',
  'it',
  'me',
  'my',
]);

/** Splits camelCase, kebab, snake and dotted names and prose into lower-case words. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word));
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? '';
  const end = line.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? line.slice(0, end + 1) : line;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}…` : sentence;
}
