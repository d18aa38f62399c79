import { isSafeIdentifier } from '../../core/index.js';

/** A saved program's name: `reports.weeklySummary` is function `weeklySummary` of `@capabilities/saved-reports`. */
export interface SavedName {
  /** kebab-case: the module is `saved-<group>`. */
  group: string;
  /** A camelCase JavaScript identifier, the function the module exports. */
  name: string;
}

/** The module a group of saved programs is compiled into. */
export const SAVED_MODULE_PREFIX = 'saved-';

const GROUP = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const FUNCTION = /^[a-z][A-Za-z0-9]*$/;
/** Names stay short: they become file names, a module name and an exported binding. */
const MAX_PART = 64;

/** The module of a group: `reports` → `saved-reports`. */
export function savedModule(group: string): string {
  return `${SAVED_MODULE_PREFIX}${group}`;
}

/**
 * Parses `<group>.<function>` (`reports.weeklySummary`), or throws an Error saying what is wrong with
 * it: the group is kebab-case (`weekly-reports`), the function camelCase (`weeklySummary`), neither a
 * reserved word, each at most 64 characters.
 */
export function parseSavedName(text: string): SavedName {
  const parts = text.split('.');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
    throw new Error(`"${text}" is not a saved program name: use <group>.<function>, e.g. reports.weeklySummary`);
  }
  const [group = '', name = ''] = parts;
  if (!GROUP.test(group) || group.length > MAX_PART) {
    throw new Error(
      `"${group}" (in "${text}") is not a group name: lowercase letters and digits, words joined by "-" (e.g. reports, weekly-reports), at most ${MAX_PART} characters`,
    );
  }
  if (!FUNCTION.test(name) || name.length > MAX_PART) {
    throw new Error(
      `"${name}" (in "${text}") is not a function name: a camelCase identifier of ASCII letters and digits starting with a lowercase letter (e.g. weeklySummary), at most ${MAX_PART} characters`,
    );
  }
  if (!isSafeIdentifier(name)) throw new Error(`"${name}" (in "${text}") is a reserved word in JavaScript; choose another function name`);
  return { group, name };
}

/** `reports.weeklySummary`. */
export function formatSavedName(saved: SavedName): string {
  return `${saved.group}.${saved.name}`;
}
