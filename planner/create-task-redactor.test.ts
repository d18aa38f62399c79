import { describe, expect, it } from 'vitest';
import { createTaskRedactor } from './create-task-redactor.js';

describe('createTaskRedactor', () => {
  const redactor = createTaskRedactor(['my-known-secret-value', 'abc', 'xy']);

  it('redacts secret keys, known values and credential shapes at any depth', () => {
    const value = {
      apiKey: 'whatever',
      rows: [{ note: 'use sk-live-1234567890abcdefXYZ now' }, { header: 'Bearer abcdefghijklmnop1234' }],
      text: 'the value my-known-secret-value leaked',
      count: 3,
    };
    expect(redactor.value(value)).toEqual({
      apiKey: '[REDACTED]',
      rows: [{ note: 'use [REDACTED] now' }, { header: 'Bearer [REDACTED]' }],
      text: 'the value [REDACTED] leaked',
      count: 3,
    });
    expect(value.apiKey).toBe('whatever'); // a copy, the input is untouched
  });

  it('leaves ordinary text alone: short known values only where they stand alone, none under 3 characters', () => {
    expect(redactor.text('abcdef skeleton xy sk-short ghp_x')).toBe('abcdef skeleton xy sk-short ghp_x');
    expect(redactor.text('pin abc here')).toBe('pin [REDACTED] here');
    expect(redactor.text('key AKIAABCDEFGHIJKLMNOP')).toBe('key [REDACTED]');
  });
});
