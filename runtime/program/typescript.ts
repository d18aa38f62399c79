import { createRequire } from 'node:module';
import type { ts as TypeScript } from 'ts-morph';

/**
 * The TypeScript compiler ts-morph carries (`@ts-morph/common`'s copy, the very instance ts-morph hands
 * out), required without ts-morph's own entry: the type-checker needs the compiler only, and importing
 * `ts-morph` costs some 0.2–0.3 s of CPU more (its entry, and Node reading its named exports), on the
 * path of every cold checked run. Found through ts-morph, which depends on it, wherever npm put it.
 */
export const ts: typeof TypeScript = (
  createRequire(createRequire(import.meta.url).resolve('ts-morph'))('@ts-morph/common') as { ts: typeof TypeScript }
).ts;
