/** A key found where it does not belong, with where it goes instead. */
export interface MisplacedKey {
  /** The full path shown to the user (`functions[1].config.requiresApproval`). */
  path: string;
  /** Where it goes: `requiresApproval goes on the function itself (functions[1].requiresApproval)`. */
  advice: string;
}

/** The keys one object of a tool definition may have. */
export interface KeyLevel {
  /** The object in words, as in "… is not a function key": `function`, `top-level`, `config`. */
  name: string;
  keys: readonly string[];
  /** Keys that belong to another level: how to say where, given the object's path and the key's value. */
  elsewhere?: Readonly<Record<string, (at: string, value: unknown) => MisplacedKey[]>>;
  /** Other names people use for a key of this level (`inputSchema` → `parameters`). */
  aliases?: Readonly<Record<string, string>>;
}

/**
 * Every key of `value` that `level` does not know, each as a sentence saying what is wrong and what to
 * write instead: where a misplaced key belongs, or the key it is probably a typo of.
 */
export function checkKeys(value: Record<string, unknown>, at: string, level: KeyLevel): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (level.keys.includes(key)) continue;
    const here = joinPath(at, key);
    const misplaced = Object.hasOwn(level.elsewhere ?? {}, key) ? level.elsewhere?.[key]?.(at, value[key]) : undefined;
    if (misplaced !== undefined && misplaced.length > 0) {
      problems.push(...misplaced.map((entry) => `${entry.path} is not a ${level.name} key; ${entry.advice}`));
      continue;
    }
    const suggestion = (Object.hasOwn(level.aliases ?? {}, key) ? level.aliases?.[key] : undefined) ?? closestKey(key, level.keys);
    const known = `(${level.name} keys: ${level.keys.join(', ')})`;
    problems.push(suggestion === undefined ? `${here} is not a ${level.name} key ${known}` : `${here} is not a ${level.name} key; did you mean ${joinPath(at, suggestion)}? ${known}`);
  }
  return problems;
}

/** `functions[1]` + `config` → `functions[1].config`; keys that are not identifiers are quoted. */
export function joinPath(at: string, key: string | number): string {
  if (typeof key === 'number') return `${at}[${key}]`;
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${at}[${JSON.stringify(key)}]`;
  return at === '' ? key : `${at}.${key}`;
}

/** The known key `key` is most likely a misspelling of, ignoring case, `_` and `-`; undefined if none is close. */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const wanted = simplify(key);
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, simplify(candidate));
    if (best === undefined || distance < best.distance) best = { key: candidate, distance };
  }
  if (best === undefined) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(Math.min(wanted.length, simplify(best.key).length) / 4)));
  return best.distance <= allowed ? best.key : undefined;
}

function simplify(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, at(i - 2, j - 2) + 1);
      const row = rows[i];
      if (row !== undefined) row[j] = distance;
    }
  }
  return at(a.length, b.length);
}
