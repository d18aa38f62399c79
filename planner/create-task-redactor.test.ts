import { describe, expect, it } from 'vitest';
import { createTaskRedactor } from './create-task-redactor.js';

describe('createTaskRedactor', () => {
  const redactor = createTaskRedactor(['my-known-secret-value', 'abc']);

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

  it('leaves ordinary text alone and ignores too-short known values', () => {
    expect(redactor.text('abc skeleton sk-short ghp_x')).toBe('abc skeleton sk-short ghp_x');
    expect(redactor.text('key AKIAABCDEFGHIJKLMNOP')).toBe('key [REDACTED]');
  });
});
