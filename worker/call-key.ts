import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/index.js';

/** The hash journaled calls are matched by: of canonical JSON, so key order does not matter. */
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
