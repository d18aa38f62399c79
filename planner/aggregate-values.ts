/** Statistics of an array: numbers get min/max/mean/sum, small-cardinality strings their counts. */
export interface FieldAggregate {
  count: number;
  nulls?: number;
  min?: number;
  max?: number;
  mean?: number;
  sum?: number;
  distinct?: number;
  /** Value counts, when there are few distinct values. */
  values?: Record<string, number>;
  trueCount?: number;
}

export interface ArrayAggregates {
  /** Where the array is, `$` for the payload itself, `$.items` for a property. */
  path: string;
  length: number;
  /** Per field for arrays of objects; `$value` for arrays of scalars. */
  fields: Record<string, FieldAggregate>;
}

const TOP_VALUES = 10;
const MAX_FIELDS = 30;

/** Aggregates of the payload's arrays: the payload itself, or its array properties one level down. */
export function aggregateValues(payload: unknown): ArrayAggregates[] {
  if (Array.isArray(payload)) return [aggregateArray('$', payload)];
  if (typeof payload !== 'object' || payload === null) return [];
  return Object.entries(payload)
    .filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]) && entry[1].length > 0)
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([key, array]) => aggregateArray(`$.${key}`, array));
}

function aggregateArray(path: string, array: unknown[]): ArrayAggregates {
  const columns = new Map<string, unknown[]>();
  for (const item of array) {
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      for (const [key, value] of Object.entries(item)) {
        let column = columns.get(key);
        if (!column) {
          if (columns.size >= MAX_FIELDS) continue;
          column = [];
          columns.set(key, column);
        }
        column.push(value);
      }
    } else {
      const column = columns.get('$value') ?? [];
      column.push(item);
      columns.set('$value', column);
    }
  }
  const fields: Record<string, FieldAggregate> = {};
  for (const [key, values] of columns) fields[key] = aggregateField(values);
  return { path, length: array.length, fields };
}

function aggregateField(values: unknown[]): FieldAggregate {
  const aggregate: FieldAggregate = { count: values.length };
  const nulls = values.filter((value) => value === null || value === undefined).length;
  if (nulls > 0) aggregate.nulls = nulls;
  const numbers = values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  if (numbers.length > 0) {
    let min = Infinity;
    let max = -Infinity;
    let sum = 0;
    for (const n of numbers) {
      if (n < min) min = n;
      if (n > max) max = n;
      sum += n;
    }
    Object.assign(aggregate, { min, max, sum: round(sum), mean: round(sum / numbers.length) });
  }
  const booleans = values.filter((value): value is boolean => typeof value === 'boolean');
  if (booleans.length > 0) aggregate.trueCount = booleans.filter(Boolean).length;
  const strings = values.filter((value): value is string => typeof value === 'string');
  if (strings.length > 0) {
    const counts = new Map<string, number>();
    for (const s of strings) counts.set(s, (counts.get(s) ?? 0) + 1);
    aggregate.distinct = counts.size;
    if (counts.size <= TOP_VALUES && strings.every((s) => s.length <= 80)) {
      aggregate.values = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
    }
  }
  return aggregate;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
