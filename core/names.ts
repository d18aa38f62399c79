/**
 * How tool, server and capability names become JavaScript names and module specifiers.
 *
 * Rules (all pure and deterministic):
 * - A name is split into words at every character that is not a letter or digit and at camelCase
 *   humps (`APIGetUser` → `API`, `Get`, `User`); digits stay with the word before them (`s3Bucket`).
 * - Modules are the words lowercased, folded to ASCII and joined by `-` (`My_Server` → `my-server`,
 *   `café` → `cafe`; a word with no ASCII letters, such as `日本語`, is dropped).
 * - Functions and namespaces are camelCase (`API-get-user` → `apiGetUser`, `a.b` → `aB`).
 * - An identifier that would start with a digit gets a `_` prefix (`1password` → `_1password`).
 * - A reserved word (ES keywords, strict-mode words, `eval`, `arguments`, and `then`, which would make
 *   a module namespace thenable) gets a `_` suffix (`delete` → `delete_`).
 * - A name with no letters or digits falls back to `fn` (functions), `capability` (namespaces and modules).
 */

/** Words that may not be exported as a binding, or that break `import * as ns` / `await import()`. */
const RESERVED_IDENTIFIERS = new Set([
  'arguments',
  'await',
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'eval',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'implements',
  'import',
  'in',
  'instanceof',
  'interface',
  'let',
  'new',
  'null',
  'package',
  'private',
  'protected',
  'public',
  'return',
  'static',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
  // Not keywords, but exporting them misbehaves: a `then` export makes the namespace a thenable, and
  // `undefined`/`NaN`/`Infinity` would shadow globals inside the proxy module.
  'then',
  'undefined',
  'NaN',
  'Infinity',
  '__proto__',
]);

const WORD = /\p{Lu}+(?![\p{Ll}])\p{Nd}*|\p{Lu}?[\p{Ll}\p{Lo}\p{Lm}\p{Lt}]+\p{Nd}*|\p{Nd}+[\p{Ll}\p{Lo}\p{Lm}]*\p{Nd}*/gu;

/** Splits a name into its words (see the module comment). */
export function splitWords(name: string): string[] {
  return name.normalize('NFC').match(WORD) ?? [];
}

/** Whether `name` may be used as an exported binding as is. */
export function isSafeIdentifier(name: string): boolean {
  return /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u.test(name) && !RESERVED_IDENTIFIERS.has(name);
}

function capitalize(word: string): string {
  const lower = word.toLowerCase();
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}

interface Normalized {
  name: string;
  /** Why the name differs from a plain case change, if it does. */
  reason?: string;
}

function normalizeIdentifier(original: string, fallback: string): Normalized {
  const words = splitWords(original);
  if (words.length === 0) {
    return { name: fallback, reason: 'it has no letters or digits' };
  }
  const [first = '', ...rest] = words;
  const camel = first.toLowerCase() + rest.map(capitalize).join('');
  if (/^\p{Nd}/u.test(camel)) {
    return { name: `_${camel}`, reason: 'an identifier cannot start with a digit' };
  }
  if (RESERVED_IDENTIFIERS.has(camel)) {
    return { name: `${camel}_`, reason: `"${camel}" is a reserved word in JavaScript` };
  }
  return { name: camel };
}

/** Latin letters that Unicode does not decompose into a base letter and a mark. */
const ASCII_FOLDS: Record<string, string> = { ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', đ: 'd', ł: 'l', þ: 'th', ð: 'd', ı: 'i' };

/** A lowercase word in ASCII: accents dropped (`é` → `e`), a few letters spelt out, anything else removed. */
function foldToAscii(word: string): string {
  return word
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{ASCII}]/gu, (char) => ASCII_FOLDS[char] ?? '')
    .replace(/[^a-z0-9]/g, '');
}

/**
 * kebab-case module name in ASCII, the only specifiers the sandbox resolves: `trainSchedule` →
 * `train-schedule`, `My_Server` → `my-server`, `größe_prüfen` → `grosse-prufen`.
 */
export function toModuleName(name: string): string {
  const words = splitWords(name)
    .map(foldToAscii)
    .filter((word) => word !== '');
  return words.length === 0 ? 'capability' : words.join('-');
}

/** camelCase JavaScript identifier for a tool: `API-get-user` → `apiGetUser`, `delete` → `delete_`. */
export function toFunctionName(toolName: string): string {
  return normalizeIdentifier(toolName, 'fn').name;
}

/** camelCase identifier of a module's namespace export: `train-schedule` → `trainSchedule`. */
export function toNamespaceName(name: string): string {
  return normalizeIdentifier(name, 'capability').name;
}

/**
 * PascalCase type name for a function's type: `toTypeName('getSchedule', 'params')` → `GetScheduleParams`.
 * The `_` suffix of a reserved word is dropped (`delete_` → `DeleteParams`) since type names are never
 * reserved; a leading digit gets a `_` prefix.
 */
export function toTypeName(functionName: string, suffix = ''): string {
  const base = RESERVED_IDENTIFIERS.has(functionName.replace(/_$/, '')) ? functionName.slice(0, -1) : functionName;
  const words = splitWords(base);
  const head = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('');
  const tail = splitWords(suffix).map(capitalize).join('');
  const joined = head + tail;
  if (joined === '') return 'Type';
  return /^\p{Nd}/u.test(joined) ? `_${joined}` : joined;
}

export interface FunctionNameWarning {
  toolName: string;
  /** The name the tool got. */
  name: string;
  message: string;
}

export interface FunctionNameAssignment {
  /** Original tool name → JavaScript name; every distinct tool name is present. */
  names: Map<string, string>;
  warnings: FunctionNameWarning[];
}

export interface ModuleNameWarning {
  sourceName: string;
  name: string;
  message: string;
}

export interface ModuleNameAssignment {
  /** Original name → module name; every distinct name is present. */
  names: Map<string, string>;
  warnings: ModuleNameWarning[];
}

interface Assigned {
  original: string;
  name: string;
  message?: string;
}

/**
 * Gives every original name a distinct normalized name, independently of input order. Names are
 * grouped by their normalized form; in a group, an original equal to the normalized form wins, then
 * the others in code-unit order; the second gets suffix `2` (or `-2` with `separator`), and so on,
 * skipping any name another original already normalizes to.
 */
function assignDistinct(
  originals: readonly string[],
  normalize: (original: string) => Normalized,
  suffix: (base: string, index: number) => string,
  kind: string,
): Assigned[] {
  const distinct = [...new Set(originals)].sort(compareCodeUnits);
  const groups = new Map<string, { original: string; reason?: string }[]>();
  for (const original of distinct) {
    const { name, reason } = normalize(original);
    const group = groups.get(name) ?? [];
    group.push(reason === undefined ? { original } : { original, reason });
    groups.set(name, group);
  }
  const taken = new Set(groups.keys());
  const assigned: Assigned[] = [];
  for (const base of [...groups.keys()].sort(compareCodeUnits)) {
    const group = groups.get(base) ?? [];
    group.sort((a, b) => Number(b.original === base) - Number(a.original === base) || compareCodeUnits(a.original, b.original));
    group.forEach((member, position) => {
      if (position === 0) {
        const renamed = member.reason !== undefined && member.original !== base;
        assigned.push(
          renamed
            ? {
                original: member.original,
                name: base,
                message: `${kind} "${member.original}" is named "${base}": ${member.reason}`,
              }
            : { original: member.original, name: base },
        );
        return;
      }
      let index = position + 1;
      while (taken.has(suffix(base, index))) index += 1;
      const name = suffix(base, index);
      taken.add(name);
      const winner = group[0]?.original ?? base;
      assigned.push({
        original: member.original,
        name,
        message: `${kind} "${member.original}" is named "${name}": "${base}" is taken by ${kind} "${winner}"`,
      });
    });
  }
  return assigned;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Assigns a distinct JavaScript name to every tool of one capability. Never drops a tool; every
 * rename beyond a change of case (reserved word, leading digit, no usable characters, clash) is
 * reported as a warning.
 *
 * @example
 * assignFunctionNames(['get_sum', 'get-sum', 'delete']).names
 * // Map { 'delete' → 'delete_', 'get-sum' → 'getSum', 'get_sum' → 'getSum2' }
 */
export function assignFunctionNames(toolNames: readonly string[]): FunctionNameAssignment {
  const assigned = assignDistinct(
    toolNames,
    (name) => normalizeIdentifier(name, 'fn'),
    (base, index) => `${base}${index}`,
    'tool',
  );
  return {
    names: new Map(assigned.map((entry) => [entry.original, entry.name])),
    warnings: assigned.flatMap((entry) =>
      entry.message === undefined ? [] : [{ toolName: entry.original, name: entry.name, message: entry.message }],
    ),
  };
}

/**
 * Assigns a distinct kebab-case module name to every capability name, with the same rules as
 * {@link assignFunctionNames}; clashes get `-2`, `-3`, ….
 */
export function assignModuleNames(names: readonly string[]): ModuleNameAssignment {
  const normalize = (name: string): Normalized => {
    const module = toModuleName(name);
    return splitWords(name).length === 0 ? { name: module, reason: 'it has no letters or digits' } : { name: module };
  };
  const assigned = assignDistinct(names, normalize, (base, index) => `${base}-${index}`, 'capability');
  return {
    names: new Map(assigned.map((entry) => [entry.original, entry.name])),
    warnings: assigned.flatMap((entry) =>
      entry.message === undefined ? [] : [{ sourceName: entry.original, name: entry.name, message: entry.message }],
    ),
  };
}

/** How a module binds its namespace object (see {@link namespaceBinding}). */
export interface NamespaceBinding {
  /** The module-level name of the namespace object. */
  local: string;
  /** Whether it is also exported by that name (it always is the default export). */
  exported: boolean;
}

/**
 * The namespace object is exported as `namespace` unless a function already has that name (a module
 * `get-weather` with one function `getWeather`); then the function keeps the name and the namespace is
 * only the default export, bound to a private `_default`.
 */
export function namespaceBinding(namespace: string, functionNames: readonly string[]): NamespaceBinding {
  const taken = new Set(functionNames);
  if (!taken.has(namespace)) return { local: namespace, exported: true };
  let local = '_default';
  for (let index = 2; taken.has(local); index += 1) local = `_default${index}`;
  return { local, exported: false };
}
