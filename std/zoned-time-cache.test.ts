// Issue 28, item 9: the formatter cache is keyed by the zone it holds, not by how a program spelled it.
import { describe, expect, it } from 'vitest';
import { cachedTimeZones, checkTimeZone, wallTimeOf } from './zoned-time.js';

describe('time-zone formatter cache', () => {
  it('keeps one formatter per canonical zone, whatever the letter case of its name', () => {
    for (const spelling of ['Asia/Kathmandu', 'asia/kathmandu', 'ASIA/KATHMANDU', 'aSiA/kAtHmAnDu']) checkTimeZone(spelling);
    // ICU's canonical name (Node 20 says Asia/Katmandu, newer ICU Asia/Kathmandu).
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Kathmandu' }).resolvedOptions().timeZone;
    const cached = cachedTimeZones().filter((zone) => zone.toLowerCase().startsWith('asia/kat'));
    expect(cached).toEqual([canonical]);
    // The shared formatter still answers for every spelling.
    expect(wallTimeOf(Date.UTC(2026, 0, 1, 0, 0, 0), 'ASIA/KATHMANDU')).toMatchObject({ hour: 5, minute: 45 });
  });
  it('still refuses an unknown zone, naming it', () => {
    expect(() => checkTimeZone('Nowhere/Zone')).toThrow('unknown time zone "Nowhere/Zone"');
  });
});
