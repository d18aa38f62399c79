import { describe, expect, it } from 'vitest';
import { ToolCallError } from '../core/index.js';
import { callTool } from './test-support/call-tool.js';
import { createTimeTool, parseIsoDuration } from './time-tool.js';
import { MAX_CACHED_TIME_ZONES, cachedTimeZoneCount } from './zoned-time.js';

const fixed = Date.parse('2024-03-10T12:00:00.000Z');
const time = createTimeTool({ now: () => fixed });

describe('std time', () => {
  it('tells the time in a zone, with its offset across DST', async () => {
    await expect(callTool(time, 'now', { timeZone: 'America/New_York' })).resolves.toEqual({
      iso: '2024-03-10T12:00:00.000Z',
      epochMs: fixed,
      timeZone: 'America/New_York',
      local: '2024-03-10T08:00:00.000-04:00',
      offset: '-04:00',
    });
    await expect(callTool(time, 'parse', { value: '2024-03-09T12:00:00Z', timeZone: 'America/New_York' })).resolves.toMatchObject({
      local: '2024-03-09T07:00:00.000-05:00',
    });
    await expect(callTool(time, 'parse', { value: fixed, timeZone: 'Asia/Kolkata' })).resolves.toMatchObject({
      local: '2024-03-10T17:30:00.000+05:30',
    });
  });

  it('reads a time without an offset as wall time in the zone, and epoch strings as ms', async () => {
    await expect(callTool(time, 'parse', { value: '2024-07-01 09:30', timeZone: 'Europe/Paris' })).resolves.toMatchObject({
      iso: '2024-07-01T07:30:00.000Z',
    });
    await expect(callTool(time, 'parse', { value: '2024-07-01' })).resolves.toMatchObject({ iso: '2024-07-01T00:00:00.000Z' });
    await expect(callTool(time, 'parse', { value: String(fixed) })).resolves.toMatchObject({ iso: '2024-03-10T12:00:00.000Z' });
    await expect(callTool(time, 'parse', { value: '2024-03-10T13:00:00+01:00' })).resolves.toMatchObject({
      iso: '2024-03-10T12:00:00.000Z',
    });
  });

  it('formats with Intl options or an exact pattern', async () => {
    await expect(callTool(time, 'format', { value: fixed, timeZone: 'America/New_York', timeStyle: 'long' })).resolves.toBe(
      '8:00:00 AM EDT',
    );
    await expect(callTool(time, 'format', { value: fixed, timeZone: 'Europe/Berlin', locale: 'de-DE', dateStyle: 'long' })).resolves.toBe(
      '10. März 2024',
    );
    await expect(
      callTool(time, 'format', { value: fixed, timeZone: 'Asia/Tokyo', pattern: "yyyy-MM-dd 'at' HH:mm:ss.SSS XXX" }),
    ).resolves.toBe('2024-03-10 at 21:00:00.000 +09:00');
    await expect(callTool(time, 'format', { value: fixed })).resolves.toBe('Mar 10, 2024, 12:00 PM');
  });

  it('adds calendar days on the wall clock across DST and exact hours as elapsed time', async () => {
    const before = '2024-03-09T17:00:00Z'; // noon in New York, the day before clocks spring forward
    await expect(callTool(time, 'add', { value: before, duration: { days: 1 }, timeZone: 'America/New_York' })).resolves.toMatchObject({
      iso: '2024-03-10T16:00:00.000Z',
      local: '2024-03-10T12:00:00.000-04:00',
    });
    await expect(callTool(time, 'add', { value: before, duration: 'PT24H', timeZone: 'America/New_York' })).resolves.toMatchObject({
      local: '2024-03-10T13:00:00.000-04:00',
    });
    await expect(callTool(time, 'add', { value: '2024-01-31T10:00:00Z', duration: { months: 1 } })).resolves.toMatchObject({
      iso: '2024-02-29T10:00:00.000Z',
    });
    await expect(callTool(time, 'add', { value: '2024-03-01T00:00:00Z', duration: '-P1D' })).resolves.toMatchObject({
      iso: '2024-02-29T00:00:00.000Z',
    });
  });

  it('moves a wall time in a DST gap forward', async () => {
    await expect(callTool(time, 'parse', { value: '2024-03-10 02:30', timeZone: 'America/New_York' })).resolves.toMatchObject({
      local: '2024-03-10T03:30:00.000-04:00',
    });
  });

  it('measures differences in every unit', async () => {
    await expect(callTool(time, 'diff', { from: '2024-03-09T12:00:00Z', to: '2024-03-10T18:00:00Z' })).resolves.toEqual({
      milliseconds: 108_000_000,
      seconds: 108_000,
      minutes: 1_800,
      hours: 30,
      days: 1.25,
    });
  });

  it('refuses unknown zones, dates and durations with a hint', async () => {
    const error = await callTool(time, 'now', { timeZone: 'Mars/Olympus' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ToolCallError);
    expect((error as ToolCallError).message).toBe(
      'unknown time zone "Mars/Olympus": use an IANA name such as "Europe/Paris", "America/New_York" or "UTC"',
    );
    await expect(callTool(time, 'parse', { value: 'next tuesday' })).rejects.toThrow('"next tuesday" is not a date');
    expect(() => parseIsoDuration('P')).toThrow('not an ISO 8601 duration');
    expect(parseIsoDuration('P1Y2M3W4DT5H6M7.5S')).toEqual({ years: 1, months: 2, weeks: 3, days: 4, hours: 5, minutes: 6, seconds: 7.5 });
  });
});

describe('std time: host budgets', () => {
  it('keeps at most 64 time-zone formatters, however many distinct zone names a program uses', async () => {
    const zones = Intl.supportedValuesOf('timeZone');
    expect(zones.length).toBeGreaterThan(MAX_CACHED_TIME_ZONES);
    // Every valid zone, then the same zones in other letter cases (Intl accepts them all).
    for (const zone of [...zones, ...zones.map((name) => name.toLowerCase()), ...zones.map((name) => name.toUpperCase())]) {
      await callTool(time, 'now', { timeZone: zone });
      expect(cachedTimeZoneCount()).toBeLessThanOrEqual(MAX_CACHED_TIME_ZONES);
    }
    expect(cachedTimeZoneCount()).toBe(MAX_CACHED_TIME_ZONES);
    // Invalid names are refused and never cached; the cache still answers correctly afterwards.
    for (let index = 0; index < 200; index += 1) {
      await expect(callTool(time, 'now', { timeZone: `Nowhere/Zone${index}` })).rejects.toThrow(`unknown time zone "Nowhere/Zone${index}"`);
    }
    expect(cachedTimeZoneCount()).toBe(MAX_CACHED_TIME_ZONES);
    await expect(callTool(time, 'now', { timeZone: 'America/New_York' })).resolves.toMatchObject({ offset: '-04:00' });
  });

  it('refuses overlong texts before doing any work', async () => {
    await expect(callTool(time, 'now', { timeZone: 'Europe/'.repeat(1000) })).rejects.toThrow(/100/);
    await expect(callTool(time, 'format', { value: fixed, pattern: 'yyyy'.repeat(1000) })).rejects.toThrow(/1000/);
    await expect(callTool(time, 'parse', { value: '2'.repeat(1_000_000) })).rejects.toThrow(/100/);
  });
});
