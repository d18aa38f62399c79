import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted, so two argument objects that differ only in key order hash alike
 * (a program rebuilding its arguments on replay may build them in another order).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }) ?? 'null';
}

export function argumentsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex').slice(0, 32);
}

/** What a journaled call is known by: the function, its arguments' hash, and which such call of the run it is (1, 2, …). */
export interface CallKey {
  capability: string;
  function: string;
  argsHash: string;
  occurrence: number;
  key: string;
}

/**
 * Numbers the calls of one run attempt: the n-th call of the same function with the same arguments
 * gets occurrence n. Identical concurrent calls are interchangeable, so their order does not matter.
 */
export function createCallCounter(): (capability: string, fn: string, args: unknown) => CallKey {
  const seen = new Map<string, number>();
  return (capability, fn, args) => {
    const argsHash = argumentsHash(args);
    const base = `${capability}.${fn}#${argsHash}`;
    const occurrence = (seen.get(base) ?? 0) + 1;
    seen.set(base, occurrence);
    return { capability, function: fn, argsHash, occurrence, key: `${base}#${occurrence}` };
  };
}

/** `std-fs.writeFile (2nd call with these arguments)`, for messages. */
export function describeCall(call: Pick<CallKey, 'capability' | 'function' | 'occurrence'>): string {
  return `${call.capability}.${call.function} (call ${call.occurrence} with these arguments)`;
}
