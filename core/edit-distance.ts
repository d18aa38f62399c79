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
