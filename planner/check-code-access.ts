import type { CatalogEntry } from './catalog-types.js';
import { CAPABILITY_PREFIX } from '../core/index.js';

/** The module re-exporting every standard-library namespace (`import { fs } from '@capabilities/std'`). */
const STD_AGGREGATE = 'std';

const IMPORT_PATTERN = /import\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/g;

/**
 * Finds uses of capability functions a task may not call, before its code runs. Conservative: with
 * hidden functions in a module, the code must import that module's functions or namespace by name and
 * use the namespace only as `ns.fn`; anything it cannot follow (a dynamic import, `import *`, a
 * namespace passed around) is refused. Returns the problems, empty when the code is allowed.
 */
export function checkCodeAccess(code: string, catalog: readonly CatalogEntry[], allowed: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  if (/\bimport\s*\(/.test(code) || /\brequire\s*\(/.test(code)) problems.push('dynamic imports are not allowed in this task; use static imports of the functions you need');
  for (const match of code.matchAll(IMPORT_PATTERN)) {
    const [, typeOnly, clause = '', specifier = ''] = match;
    if (typeOnly || !specifier.startsWith(CAPABILITY_PREFIX)) continue;
    const module = specifier.slice(CAPABILITY_PREFIX.length);
    const entries = catalog.filter((entry) => entry.module === module || (module === STD_AGGREGATE && entry.module.startsWith('std-')));
    const hidden = entries.filter((entry) => !allowed.has(entry.id));
    if (hidden.length === 0) continue;
    const named = /^\{([^}]*)\}$/.exec(clause.trim());
    if (!named) {
      problems.push(`import the functions of "${specifier}" by name (import { … } from '${specifier}'): some of its functions are not available to this task`);
      continue;
    }
    for (const part of (named[1] ?? '').split(',')) {
      const [imported = '', local = imported] = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/).map((word) => word.trim());
      if (imported === '' || part.trim().startsWith('type ')) continue;
      const direct = entries.find((entry) => entry.function === imported && (module !== STD_AGGREGATE || entry.module === module));
      if (direct) {
        if (!allowed.has(direct.id)) problems.push(`${direct.id} is not available to this task`);
        continue;
      }
      const members = entries.filter((entry) => entry.namespace === imported);
      if (members.length === 0 || members.every((entry) => allowed.has(entry.id))) continue;
      problems.push(...checkNamespaceUse(code, local, members, allowed));
    }
  }
  return [...new Set(problems)];
}

function checkNamespaceUse(source: string, local: string, members: CatalogEntry[], allowed: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const code = source.replace(IMPORT_PATTERN, '');
  const escaped = local.replace(/[$]/g, '\\$');
  const all = [...code.matchAll(new RegExp(`(?<![\\w$.])${escaped}(?![\\w$])`, 'g'))].length;
  const accesses = [...code.matchAll(new RegExp(`(?<![\\w$.])${escaped}\\s*(?:\\?\\.|\\.)\\s*([\\w$]+)`, 'g'))];
  for (const access of accesses) {
    const entry = members.find((member) => member.function === access[1]);
    if (entry && !allowed.has(entry.id)) problems.push(`${entry.id} is not available to this task`);
  }
  if (all > accesses.length) problems.push(`use "${local}" only as ${local}.<function>(…): some of its functions are not available to this task`);
  return problems;
}
