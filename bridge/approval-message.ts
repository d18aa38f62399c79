import { preview } from './schema-validator.js';

/**
 * Fills a `{param}` template from the call's arguments. Unknown names stay as written, so a typo in a
 * template shows up in the prompt instead of silently becoming empty.
 *
 * @example
 * fillTemplate('Delete {path}?', { path: 'a.txt' }) // → 'Delete a.txt?'
 */
export function fillTemplate(template: string, args: Record<string, unknown>): string {
  return template.replace(/\{([A-Za-z_$][\w$.-]*)\}/g, (placeholder, name: string) => {
    if (!Object.hasOwn(args, name)) return placeholder;
    const value = args[name];
    return typeof value === 'string' ? value : preview(value);
  });
}

/** The prompt shown when no better message exists: `Allow std-fs.remove(path: "a.txt")?`. */
export function defaultApprovalMessage(capability: string, functionName: string, args: Record<string, unknown>): string {
  const summary = Object.entries(args)
    .map(([name, value]) => `${name}: ${preview(value)}`)
    .join(', ');
  return `Allow ${capability}.${functionName}(${summary})?`;
}
