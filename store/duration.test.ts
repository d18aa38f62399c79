import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.js';
import { parseDuration } from './duration.js';

describe('parseDuration', () => {
  it('reads a whole number and a unit', () => {
    expect(parseDuration('500ms', 'x')).toBe(500);
    expect(parseDuration('30s', 'x')).toBe(30_000);
    expect(parseDuration('15m', 'x')).toBe(900_000);
    expect(parseDuration('12h', 'x')).toBe(43_200_000);
    expect(parseDuration('7d', 'x')).toBe(604_800_000);
    expect(parseDuration('0s', 'x')).toBe(0);
  });

  it('says what it takes, naming the option', () => {
    expect(() => parseDuration('a week', '--older-than')).toThrow(
      '--older-than takes a duration: a whole number and ms, s, m, h or d, such as 7d or 12h (got "a week")',
    );
    expect(() => parseDuration('1.5d', '--older-than')).toThrow('takes a duration');
    expect(() => parseDuration(`${'9'.repeat(20)}d`, '--older-than')).toThrow('too long a duration');
  });
});

describe('durable.retention in the config', () => {
  it('takes durations and refuses anything else, naming the key', () => {
    const root = process.cwd();
    expect(resolveConfig({ durable: { retention: { olderThan: '14d', interval: '1h' } } }, { root }).durable?.retention).toEqual({
      olderThan: '14d',
      interval: '1h',
    });
    expect(() => resolveConfig({ durable: { retention: { olderThan: 'two weeks' } } }, { root })).toThrow(
      /durable\.retention\.olderThan.*a duration/,
    );
    expect(() => resolveConfig({ durable: { retention: { interval: '1h' } } }, { root })).toThrow(/durable\.retention\.olderThan/);
  });
});
