/**
 * Time-zone arithmetic on top of Intl (no Temporal on Node 20): wall-clock fields of an instant in
 * an IANA zone, the zone's offset, and the instant of a wall-clock time.
 */

import { LruMap } from './lru-map.js';

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

/**
 * Most time-zone formatters kept, keyed by the zone's canonical name (what
 * `resolvedOptions().timeZone` says): Intl accepts every IANA name in any letter case ("europe/paris",
 * "EUROPE/PARIS", …), and a cache keyed by the spelling built one native formatter per variant (+130-230
 * MB over a dozen runs). Invalid names are never cached.
 */
export const MAX_CACHED_TIME_ZONES = 64;
/** Most spellings remembered with their canonical zone (one per name in lower case). */
const MAX_SPELLINGS = 1024;

const formatters = new LruMap<string, Intl.DateTimeFormat>(MAX_CACHED_TIME_ZONES);
/** A name in lower case → its canonical zone: a case variant of a known name makes no formatter. */
const canonicalNames = new LruMap<string, string>(MAX_SPELLINGS);

/** How many formatters are cached now (for tests of the bound). */
export function cachedTimeZoneCount(): number {
  return formatters.size;
}

/** The zones cached now, by their canonical names (for tests). */
export function cachedTimeZones(): string[] {
  return [...formatters.keys()];
}

/** Throws a RangeError naming the zone when it is not a known IANA zone. */
export function checkTimeZone(timeZone: string): string {
  formatterFor(timeZone);
  return timeZone;
}

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  const spelling = timeZone.toLowerCase();
  const canonical = canonicalNames.get(spelling);
  const cached = canonical === undefined ? undefined : formatters.get(canonical);
  if (cached !== undefined) return cached;
  const formatter = newFormatter(timeZone);
  const zone = formatter.resolvedOptions().timeZone;
  canonicalNames.set(spelling, zone);
  const known = formatters.get(zone);
  if (known !== undefined) return known;
  formatters.set(zone, formatter);
  return formatter;
}

function newFormatter(timeZone: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    throw new RangeError(`unknown time zone "${timeZone}": use an IANA name such as "Europe/Paris", "America/New_York" or "UTC"`);
  }
}

export function wallTimeOf(epochMs: number, timeZone: string): WallTime {
  const fields: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(epochMs))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return {
    year: fields.year ?? 1970,
    month: fields.month ?? 1,
    day: fields.day ?? 1,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
    millisecond: ((epochMs % 1000) + 1000) % 1000,
  };
}

/** Minutes the zone is ahead of UTC at that instant (`-240` for New York in summer). */
export function offsetMinutes(epochMs: number, timeZone: string): number {
  const wall = wallTimeOf(epochMs, timeZone);
  return Math.round((utcOf(wall) - epochMs) / 60_000);
}

/**
 * The instant a wall-clock time in a zone denotes. In a DST gap the time is moved forward by the
 * gap; in an overlap the earlier instant wins.
 */
export function epochOfWallTime(wall: WallTime, timeZone: string): number {
  const asUtc = utcOf(wall);
  const first = asUtc - offsetMinutes(asUtc, timeZone) * 60_000;
  const second = asUtc - offsetMinutes(first, timeZone) * 60_000;
  const exact = [first, second].filter((candidate) => utcOf(wallTimeOf(candidate, timeZone)) === asUtc);
  return exact.length > 0 ? Math.min(...exact) : Math.max(first, second);
}

/** `2024-03-10T08:00:00.000-04:00`: the instant as wall-clock time in the zone, with its offset. */
export function zonedIso(epochMs: number, timeZone: string): string {
  const wall = wallTimeOf(epochMs, timeZone);
  return `${pad(wall.year, 4)}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}.${pad(wall.millisecond, 3)}${formatOffset(offsetMinutes(epochMs, timeZone))}`;
}

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

export function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

function utcOf(wall: WallTime): number {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  date.setUTCHours(wall.hour, wall.minute, wall.second, wall.millisecond);
  return date.getTime();
}
