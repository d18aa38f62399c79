/**
 * Size checks on UTF-8 text without a pass over it when its length alone decides: UTF-8 takes at
 * least one and at most three bytes per UTF-16 unit (a surrogate pair, two units, takes four).
 */

const MAX_UTF8_BYTES_PER_UNIT = 3;

/** The UTF-8 size of `text` when it is over `limit` bytes, else `undefined` (counted only if it could be over). */
export function utf8SizeOver(text: string, limit: number): number | undefined {
  if (text.length * MAX_UTF8_BYTES_PER_UNIT <= limit) return undefined;
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > limit ? bytes : undefined;
}
