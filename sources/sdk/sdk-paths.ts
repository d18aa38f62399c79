import path from 'node:path';
import type { SdkConfig } from '../../config/index.js';

/**
 * The keyword of an input schema naming a function's parameters in order, when the program's
 * arguments object is spread over several (`add(a, b)` called with `{ a, b }`); absent, the function
 * takes the arguments object itself as its one parameter.
 */
export const POSITIONAL_KEYWORD = 'x-agent-spaces-arguments';

/** The specifier the SDK is imported by, as TypeScript resolves it from the config's folder. */
export function specifierOf(sdk: SdkConfig, root: string): string {
  if (sdk.package !== undefined) return sdk.package;
  const relative = path
    .relative(root, path.resolve(root, sdk.module ?? '.'))
    .split(path.sep)
    .join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** Whether a function's dotted path (`issues.get`) matches one of `patterns` (`issues.*`, `*.get`, `repos.**`). */
export function matchesAny(dotted: string, patterns: readonly string[] | undefined): boolean {
  return (patterns ?? []).some((pattern) => globToRegExp(pattern).test(dotted));
}

function globToRegExp(pattern: string): RegExp {
  const source = pattern
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^.]*'),
    )
    .join('.*');
  return new RegExp(`^${source}$`);
}

/** Reads `value` at a dotted path (`rest.issues`), or `undefined` when a step is missing. */
export function valueAt(value: unknown, steps: readonly string[]): unknown {
  let current = value;
  for (const step of steps) {
    if ((typeof current !== 'object' && typeof current !== 'function') || current === null) return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/** `path` split into its steps (`''` → none). */
export function stepsOf(dotted: string | undefined): string[] {
  return dotted === undefined || dotted === '' ? [] : dotted.split('.');
}
