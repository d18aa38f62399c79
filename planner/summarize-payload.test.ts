import { describe, expect, it } from 'vitest';
import { summarizePayload } from './summarize-payload.js';

const rows = Array.from({ length: 2000 }, (_, i) => ({
  id: `r-${i}`,
  amount: i % 100,
  status: i % 3 === 0 ? 'open' : 'closed',
  note: i % 10 === 0 ? null : 'x'.repeat(500),
  paid: i % 2 === 0,
}));

describe('summarizePayload', () => {
  it('gives the shape, a small sample and aggregates of a large table within maxChars', () => {
    const summary = summarizePayload('invoices', rows, { maxChars: 2000, storageRef: '/runs/t/invoices.json' });
    expect(JSON.stringify(summary).length).toBeLessThanOrEqual(2000);
    expect(summary.originalSize).toEqual({ chars: JSON.stringify(rows).length, items: 2000 });
    expect(summary.truncated).toBe(true);
    expect(summary.schema).toEqual([{ amount: 'number', id: 'string', note: 'null|string', paid: 'boolean', status: 'string' }]);
    expect(Array.isArray(summary.sample) && summary.sample.length).toBeGreaterThan(0);
    const fields = summary.aggregates[0]?.fields;
    expect(summary.aggregates[0]?.length).toBe(2000);
    expect(fields?.amount).toMatchObject({ min: 0, max: 99, mean: 49.5 });
    expect(fields?.status?.values).toEqual({ closed: 1333, open: 667 });
    expect(fields?.id?.distinct).toBe(2000);
    expect(fields?.id?.values).toBeUndefined(); // too many distinct values to list
    expect(fields?.note?.nulls).toBe(200);
    expect(fields?.paid?.trueCount).toBe(1000);
    expect(summary.storageRef).toBe('/runs/t/invoices.json');
  });

  it('finds arrays one level down and cuts long strings in the sample', () => {
    const summary = summarizePayload('page', { total: 3, items: [{ body: 'y'.repeat(5000) }, { body: 'short' }] }, { maxChars: 4000 });
    expect(summary.aggregates.map((a) => a.path)).toEqual(['$.items']);
    const sample = summary.sample as { items: { body: string }[] };
    expect(sample.items[0]?.body).toMatch(/^y{200}… \(5000 chars\)$/);
    expect(summary.storageRef).toBeNull();
  });

  it('is deterministic and marks a payload that fits whole as not truncated', () => {
    expect(summarizePayload('t', rows, { maxChars: 1500 })).toEqual(summarizePayload('t', rows, { maxChars: 1500 }));
    expect(summarizePayload('small', { a: 1 }).truncated).toBe(false);
  });

  it('shows more of the sample for debug than for planning', () => {
    const small = rows.map(({ id, amount }) => ({ id, amount }));
    const planning = summarizePayload('t', small, { purpose: 'planning', maxChars: 10_000 }).sample as unknown[];
    const debug = summarizePayload('t', small, { purpose: 'debug', maxChars: 10_000 }).sample as unknown[];
    expect(debug.length).toBeGreaterThan(planning.length);
  });

  it("computes aggregates for JSON that arrived as text (an MCP tool's text result)", () => {
    const text = JSON.stringify({ total: rows.length, items: rows }, null, 2);
    const summary = summarizePayload('search_issues', text, { maxChars: 2000 });
    expect(summary.parsedFrom).toBe('json-text');
    expect(summary.originalSize).toEqual({ chars: text.length, keys: 2 });
    expect(summary.schema).toMatchObject({ total: 'number', items: [{ amount: 'number', status: 'string' }] });
    expect(summary.aggregates.map((aggregate) => aggregate.path)).toEqual(['$.items']);
    expect(summary.aggregates[0]?.fields.status?.values).toEqual({ closed: 1333, open: 667 });
    expect(summary.notes[0]).toMatch(/^a string holding JSON/);
    expect(JSON.stringify(summary).length).toBeLessThanOrEqual(2000);
  });

  it('reads JSON Lines as an array, and leaves text that is not JSON a string', () => {
    const lines = rows
      .slice(0, 50)
      .map((row) => JSON.stringify(row))
      .join('\n');
    const summary = summarizePayload('log', lines, { maxChars: 3000 });
    expect(summary.parsedFrom).toBe('json-lines');
    expect(summary.aggregates[0]).toMatchObject({ path: '$', length: 50 });
    const prose = summarizePayload('page', `{not json} ${'words '.repeat(1000)}`, { maxChars: 1000 });
    expect(prose.parsedFrom).toBeUndefined();
    expect(prose.schema).toBe('string');
    expect(prose.truncated).toBe(true);
  });
});
