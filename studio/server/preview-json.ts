/** How much of a call's arguments a timeline keeps: what a person reads, not the payload. */
export const ARGUMENT_PREVIEW_CHARS = 2000;

/**
 * JSON text of `value`, cut at `limit` characters (ending in `…`), built by a walk that stops there: a
 * megabyte argument costs a few kilobytes of work and memory, never a full `JSON.stringify`.
 */
export function previewJson(value: unknown, limit = ARGUMENT_PREVIEW_CHARS): string {
  const parts: string[] = [];
  let length = 0;
  const push = (text: string): boolean => {
    const room = limit - length;
    if (text.length > room) {
      parts.push(text.slice(0, Math.max(room, 0)));
      length = limit;
      return false;
    }
    parts.push(text);
    length += text.length;
    return true;
  };
  const walk = (current: unknown, depth: number): boolean => {
    if (current === null || typeof current !== 'object') {
      // A long string is cut before it is quoted, so it is never copied whole.
      const text =
        typeof current === 'string' && current.length > limit
          ? JSON.stringify(current.slice(0, limit))
          : (JSON.stringify(current) ?? 'null');
      return push(text);
    }
    if (depth > 20) return push('"…"');
    if (Array.isArray(current)) {
      if (!push('[')) return false;
      for (const [index, item] of current.entries()) {
        if ((index > 0 && !push(',')) || !walk(item, depth + 1)) return false;
      }
      return push(']');
    }
    if (!push('{')) return false;
    let first = true;
    for (const [key, item] of Object.entries(current)) {
      if ((!first && !push(',')) || !push(`${JSON.stringify(key)}:`) || !walk(item, depth + 1)) return false;
      first = false;
    }
    return push('}');
  };
  const complete = walk(value, 0);
  const text = parts.join('');
  return complete ? text : `${text}…`;
}
