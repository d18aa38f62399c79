import { z } from 'zod';
import { ToolCallError, defineFunction, defineTool, errorMessage } from '../core/index.js';
import type { ToolCallContext } from '../core/index.js';
import { checkTimeZone, epochOfWallTime, formatOffset, offsetMinutes, pad, wallTimeOf, zonedIso } from './zoned-time.js';

// Bounded lengths: every text here is short by nature, and a megabyte of it would only cost host CPU.
const timeValue = z
  .union([z.string().max(100), z.number()])
  .describe('An ISO 8601 string ("2024-03-10T09:00:00Z", "2024-03-10 09:00" = wall time in timeZone) or epoch milliseconds.');
const timeZone = z.string().max(100).default('UTC').describe('IANA time zone, e.g. "Europe/Paris", "America/New_York" (default UTC).');
const instant = z.object({
  iso: z.string().describe('UTC, e.g. 2024-03-10T13:00:00.000Z'),
  epochMs: z.number(),
  timeZone: z.string(),
  local: z.string().describe('Wall-clock time in timeZone with its offset, e.g. 2024-03-10T09:00:00.000-04:00'),
  offset: z.string().describe('The zone offset at that instant, e.g. -04:00'),
});
const durationObject = z.object({
  years: z.number().optional(),
  months: z.number().optional(),
  weeks: z.number().optional(),
  days: z.number().optional(),
  hours: z.number().optional(),
  minutes: z.number().optional(),
  seconds: z.number().optional(),
  milliseconds: z.number().optional(),
});
type Duration = z.output<typeof durationObject>;

/** `time`: the current time, parsing, formatting and arithmetic, in any IANA time zone. */
export function createTimeTool(options: { now?: () => number } = {}) {
  const now = options.now ?? Date.now;
  return defineTool({
    name: 'time',
    description:
      'Current time, parse dates, format them in a time zone (Intl or a yyyy-MM-dd HH:mm pattern), add durations, and measure differences.',
    functions: {
      now: defineFunction({
        description: 'The current time: UTC ISO string, epoch ms, and wall-clock time in the given zone.',
        parameters: z.object({ timeZone }),
        returns: instant,
        handler: ({ timeZone }, context) => guard(context, () => describeInstant(now(), timeZone)),
      }),
      parse: defineFunction({
        description:
          'Parses an ISO 8601 string or epoch milliseconds into an instant. A string without an offset is read as wall time in timeZone.',
        parameters: z.object({ value: timeValue, timeZone }),
        returns: instant,
        handler: ({ value, timeZone }, context) => guard(context, () => describeInstant(toEpoch(value, timeZone), timeZone)),
      }),
      format: defineFunction({
        description:
          'Formats an instant in a time zone. With pattern (tokens yyyy MM dd HH mm ss SSS XXX, other letters in single quotes) the output is exact; otherwise Intl.DateTimeFormat with locale and options (dateStyle/timeStyle default medium/short).',
        parameters: z.object({
          value: timeValue,
          timeZone,
          pattern: z.string().max(1000).optional().describe('e.g. "yyyy-MM-dd HH:mm" or "dd.MM.yyyy \'at\' HH:mm XXX"'),
          locale: z.string().max(100).default('en-US'),
          dateStyle: z.enum(['full', 'long', 'medium', 'short']).optional(),
          timeStyle: z.enum(['full', 'long', 'medium', 'short']).optional(),
          weekday: z.enum(['long', 'short', 'narrow']).optional(),
          year: z.enum(['numeric', '2-digit']).optional(),
          month: z.enum(['numeric', '2-digit', 'long', 'short', 'narrow']).optional(),
          day: z.enum(['numeric', '2-digit']).optional(),
          hour: z.enum(['numeric', '2-digit']).optional(),
          minute: z.enum(['numeric', '2-digit']).optional(),
          second: z.enum(['numeric', '2-digit']).optional(),
          hour12: z.boolean().optional(),
          timeZoneName: z.enum(['short', 'long', 'shortOffset', 'longOffset']).optional(),
        }),
        returns: z.string(),
        handler: ({ value, timeZone, pattern, locale, ...intl }, context) =>
          guard(context, () => {
            const epochMs = toEpoch(value, timeZone);
            checkTimeZone(timeZone);
            if (pattern !== undefined) return formatPattern(epochMs, timeZone, pattern);
            const fields = Object.fromEntries(Object.entries(intl).filter(([, option]) => option !== undefined));
            const style = Object.keys(fields).length === 0 ? { dateStyle: 'medium' as const, timeStyle: 'short' as const } : fields;
            return new Intl.DateTimeFormat(locale, { timeZone, ...style }).format(new Date(epochMs));
          }),
      }),
      add: defineFunction({
        description:
          'Adds a duration (object like {days: 1, hours: 2}, or ISO 8601 "P1DT2H"; negative values subtract). Years, months, weeks and days follow the calendar in timeZone (a day across a DST change keeps the wall time); hours and smaller are exact.',
        parameters: z.object({ value: timeValue, duration: z.union([durationObject, z.string().max(100)]), timeZone }),
        returns: instant,
        handler: ({ value, duration, timeZone }, context) =>
          guard(context, () => {
            const parts = typeof duration === 'string' ? parseIsoDuration(duration) : duration;
            return describeInstant(addDuration(toEpoch(value, timeZone), parts, timeZone), timeZone);
          }),
      }),
      diff: defineFunction({
        description: 'The time from `from` to `to` (positive when to is later), in every unit (fractions kept).',
        parameters: z.object({ from: timeValue, to: timeValue, timeZone }),
        returns: z.object({ milliseconds: z.number(), seconds: z.number(), minutes: z.number(), hours: z.number(), days: z.number() }),
        handler: ({ from, to, timeZone }, context) =>
          guard(context, () => {
            const milliseconds = toEpoch(to, timeZone) - toEpoch(from, timeZone);
            return {
              milliseconds,
              seconds: milliseconds / 1000,
              minutes: milliseconds / 60_000,
              hours: milliseconds / 3_600_000,
              days: milliseconds / 86_400_000,
            };
          }),
      }),
    },
  });
}

function describeInstant(epochMs: number, timeZone: string): z.output<typeof instant> {
  checkTimeZone(timeZone);
  return {
    iso: new Date(epochMs).toISOString(),
    epochMs,
    timeZone,
    local: zonedIso(epochMs, timeZone),
    offset: formatOffset(offsetMinutes(epochMs, timeZone)),
  };
}

const LOCAL_ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?$/;

/** Epoch ms of a value: a number is epoch ms; a string is ISO 8601 (wall time in `timeZone` without an offset). */
export function toEpoch(value: string | number, timeZone: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`${value} is not a time: pass epoch milliseconds or an ISO 8601 string`);
    return value;
  }
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return Number(text);
  const local = LOCAL_ISO.exec(text);
  if (local !== null) {
    const [, year, month, day, hour, minute, second, fraction] = local;
    return epochOfWallTime(
      {
        year: Number(year),
        month: Number(month),
        day: Number(day),
        hour: Number(hour ?? 0),
        minute: Number(minute ?? 0),
        second: Number(second ?? 0),
        millisecond: Number((fraction ?? '0').padEnd(3, '0').slice(0, 3)),
      },
      checkTimeZone(timeZone),
    );
  }
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed))
    throw new RangeError(`"${value}" is not a date: use ISO 8601 such as "2024-03-10T09:00:00Z" or epoch milliseconds`);
  return parsed;
}

/** Adds calendar units on the wall clock of `timeZone`, then exact units. */
export function addDuration(epochMs: number, duration: Duration, timeZone: string): number {
  const calendar = (duration.years ?? 0) !== 0 || (duration.months ?? 0) !== 0 || (duration.weeks ?? 0) !== 0 || (duration.days ?? 0) !== 0;
  let result = epochMs;
  if (calendar) {
    const wall = wallTimeOf(epochMs, timeZone);
    const monthIndex = wall.month - 1 + (duration.months ?? 0) + 12 * (duration.years ?? 0);
    const year = wall.year + Math.floor(monthIndex / 12);
    const month = (((monthIndex % 12) + 12) % 12) + 1;
    // Jan 31 + 1 month is the last day of February, not March 3.
    const day = Math.min(wall.day, new Date(Date.UTC(year, month, 0)).getUTCDate()) + 7 * (duration.weeks ?? 0) + (duration.days ?? 0);
    const shifted = new Date(Date.UTC(year, month - 1, day));
    result = epochOfWallTime(
      { ...wall, year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() },
      timeZone,
    );
  }
  return (
    result +
    (duration.hours ?? 0) * 3_600_000 +
    (duration.minutes ?? 0) * 60_000 +
    (duration.seconds ?? 0) * 1000 +
    (duration.milliseconds ?? 0)
  );
}

const ISO_DURATION =
  /^([+-])?P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;

export function parseIsoDuration(text: string): Duration {
  const match = ISO_DURATION.exec(text.trim());
  if (match === null || text.trim().toUpperCase().replace(/^[+-]/, '') === 'P' || /T$/i.test(text.trim())) {
    throw new RangeError(`"${text}" is not an ISO 8601 duration: write e.g. "P1D", "PT2H30M" or {days: 1}`);
  }
  const sign = match[1] === '-' ? -1 : 1;
  const at = (index: number): number | undefined => (match[index] === undefined ? undefined : sign * Number(match[index]));
  const entries = Object.entries({ years: at(2), months: at(3), weeks: at(4), days: at(5), hours: at(6), minutes: at(7), seconds: at(8) });
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as Duration;
}

/** Formats with tokens yyyy MM dd HH mm ss SSS XXX; text in single quotes is literal. */
export function formatPattern(epochMs: number, timeZone: string, pattern: string): string {
  const wall = wallTimeOf(epochMs, timeZone);
  const tokens: Record<string, string> = {
    yyyy: pad(wall.year, 4),
    MM: pad(wall.month),
    dd: pad(wall.day),
    HH: pad(wall.hour),
    mm: pad(wall.minute),
    ss: pad(wall.second),
    SSS: pad(wall.millisecond, 3),
    XXX: formatOffset(offsetMinutes(epochMs, timeZone)),
  };
  return pattern.replace(
    /'([^']*)'|yyyy|MM|dd|HH|mm|ss|SSS|XXX/g,
    (token, literal: string | undefined) => literal ?? tokens[token] ?? token,
  );
}

function guard<T>(context: ToolCallContext, action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof ToolCallError) throw error;
    throw new ToolCallError(
      'INVALID_ARGUMENTS',
      errorMessage(error),
      { capability: context.capability, function: context.function },
      { cause: error },
    );
  }
}
