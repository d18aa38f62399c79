/**
 * Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`: the measure behind every
 * "did you mean" (config keys, tool-file keys, capability modules).
 */
export function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, (beforePrevious[j - 2] ?? 0) + 1);
      current[j] = distance;
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known name `name` is most likely a misspelling of, ignoring case, `_`, `-` and spaces; undefined if
 * none is close (at most one edit per four characters, between one and three).
 */
export function closestKey(name: string, known: readonly string[]): string | undefined {
  const wanted = simplify(name);
  let best: { key: string; distance: number; spelled: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(wanted, simplify(candidate));
    // Between equally close names, the one closer as written (separators included) wins: std-f → std-fs.
    const spelled = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (best === undefined || distance < best.distance || (distance === best.distance && spelled < best.spelled))
      best = { key: candidate, distance, spelled };
  }
  if (best === undefined) return undefined;
  const allowed = Math.min(3, Math.max(1, Math.floor(Math.min(wanted.length, simplify(best.key).length) / 4)));
  return best.distance <= allowed ? best.key : undefined;
}

function simplify(key: string): string {
  return key.toLowerCase().replace(/[-_\s]/g, '');
}
