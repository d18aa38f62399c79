import type { Diagnostic } from './types.js';

/**
 * A type error as the studio prints it: `TS2322: Type 'string' is not assignable…`. A statement the
 * sandbox refuses (an import of node:fs, a require) and a check that was stopped are no TypeScript
 * errors: they have no code (or 0, -1 from an older record) and are shown by their message alone,
 * as `run` and serve's execute_code print them.
 */
export function diagnosticText(diagnostic: Pick<Diagnostic, 'code' | 'message'>): string {
  return diagnostic.code !== undefined && diagnostic.code > 0 ? `TS${diagnostic.code}: ${diagnostic.message}` : diagnostic.message;
}
