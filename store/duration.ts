const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration as the config (`durable.retention`) and `store prune --older-than` write it: a whole
 * number and a unit, `500ms`, `30s`, `15m`, `12h`, `7d`; in ms. Throws a message naming `what`.
 */
export function parseDuration(text: string, what: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (match === null)
    throw new RangeError(`${what} takes a duration: a whole number and ms, s, m, h or d, such as 7d or 12h (got "${text}")`);
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!Number.isSafeInteger(ms)) throw new RangeError(`${what}: "${text}" is too long a duration`);
  return ms;
}
