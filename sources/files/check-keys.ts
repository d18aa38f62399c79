import { closestKey } from '../../core/index.js';

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
    problems.push(
      suggestion === undefined
        ? `${here} is not a ${level.name} key ${known}`
        : `${here} is not a ${level.name} key; did you mean ${joinPath(at, suggestion)}? ${known}`,
    );
  }
  return problems;
}

/** `functions[1]` + `config` → `functions[1].config`; keys that are not identifiers are quoted. */
export function joinPath(at: string, key: string | number): string {
  if (typeof key === 'number') return `${at}[${key}]`;
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${at}[${JSON.stringify(key)}]`;
  return at === '' ? key : `${at}.${key}`;
}
