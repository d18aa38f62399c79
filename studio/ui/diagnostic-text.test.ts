import { describe, expect, it } from 'vitest';
import { diagnosticText } from './diagnostic-text.js';

describe('diagnosticText', () => {
  it('prefixes a TypeScript error with its code', () => {
    expect(diagnosticText({ code: 2322, message: "Type 'string' is not assignable to type 'number'." })).toBe(
      "TS2322: Type 'string' is not assignable to type 'number'.",
    );
  });

  it('shows a refused import by its message, with no fake TS0 (a code left out, 0 or -1)', () => {
    const message = "import of 'node:fs' is not allowed in the sandbox";
    expect(diagnosticText({ message })).toBe(message);
    expect(diagnosticText({ code: 0, message })).toBe(message);
    expect(diagnosticText({ code: -1, message: 'the type-check of this program failed' })).toBe('the type-check of this program failed');
  });
});
