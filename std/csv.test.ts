import { describe, expect, it } from 'vitest';
import { parseCsv, parseCsvRows, stringifyCsv } from './csv.js';
import { createCsvTool } from './csv-tool.js';
import { callTool } from './test-support/call-tool.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';

describe('csv', () => {
  it.each<[string, string, string[][]]>([
    [
      'plain',
      'a,b\n1,2\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'no trailing newline',
      'a,b\n1,2',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    [
      'CRLF',
      'a,b\r\n1,2\r\n',
      [
        ['a', 'b'],
        ['1', '2'],
      ],
    ],
    ['quoted delimiter', 'a,"b,c"\n', [['a', 'b,c']]],
    ['escaped quotes', '"say ""hi""",x\n', [['say "hi"', 'x']]],
    [
      'newline inside quotes',
      '"line 1\nline 2",x\r\n"a\r\nb",y',
      [
        ['line 1\nline 2', 'x'],
        ['a\r\nb', 'y'],
      ],
    ],
    [
      'empty fields',
      ',,\n"",x,\n',
      [
        ['', '', ''],
        ['', 'x', ''],
      ],
    ],
    ['BOM', '\uFEFFa,b\n', [['a', 'b']]],
    ['empty text', '', []],
  ])('parses rows: %s', (_name, text, rows) => {
    expect(parseCsvRows(text)).toEqual(rows);
  });

  it('parses a header row into objects, with a delimiter option, blank lines and short rows', () => {
    expect(parseCsv('name;city;city\nAda;"London; UK";x\n\nBob;Paris\n', { delimiter: ';' })).toEqual([
      { name: 'Ada', city: 'London; UK', city_2: 'x' },
      { name: 'Bob', city: 'Paris', city_2: '' },
    ]);
  });

  it('keeps columns named like Object.prototype members, filling short rows too', () => {
    const records = parseCsv('__proto__,constructor,toString\nx,y,z\n1\n');
    expect(JSON.stringify(records)).toBe(
      '[{"__proto__":"x","constructor":"y","toString":"z"},{"__proto__":"1","constructor":"","toString":""}]',
    );
    expect(Object.getPrototypeOf(records[0])).toBe(Object.prototype);
  });

  it('refuses an unterminated quote and a bad delimiter', () => {
    expect(() => parseCsvRows('"abc\n')).toThrow('unterminated quoted field');
    expect(() => parseCsvRows('a', { delimiter: '""' })).toThrow('delimiter must be one character');
  });

  it('round-trips awkward values through stringify and parse', () => {
    const rows = [
      { id: '1', text: 'comma, inside', quote: 'he said "no"', multi: 'a\nb\r\nc', space: ' padded ' },
      { id: '2', text: '', quote: '""', multi: '', space: 'x' },
    ];
    const text = stringifyCsv(rows);
    expect(text).toBe('id,text,quote,multi,space\n1,"comma, inside","he said ""no""","a\nb\r\nc"," padded "\n2,,"""""",,x\n');
    expect(parseCsv(text)).toEqual(rows);
    const tabbed = stringifyCsv(rows, { delimiter: '\t' });
    expect(parseCsv(tabbed, { delimiter: '\t' })).toEqual(rows);
  });

  it('writes mixed values, column order, arrays and no header', () => {
    expect(
      stringifyCsv([
        { a: 1, b: null, c: { x: true } },
        { b: 'y', d: false },
      ]),
    ).toBe('a,b,c,d\n1,,"{""x"":true}",\n,y,,false\n');
    expect(stringifyCsv([{ a: 1, b: 2 }], { columns: ['b', 'a'], header: false })).toBe('2,1\n');
    expect(
      stringifyCsv([
        ['x', 'y,z'],
        [1, 2],
      ]),
    ).toBe('x,"y,z"\n1,2\n');
    expect(stringifyCsv([])).toBe('');
  });

  it('is exposed as the csv tool with defaults applied', async () => {
    const csv = createCsvTool();
    await expect(callTool(csv, 'parse', { text: 'a,b\n1,2' })).resolves.toEqual([{ a: '1', b: '2' }]);
    await expect(callTool(csv, 'stringify', { rows: [{ a: '1' }] })).resolves.toBe('a\n1\n');
  });
});

describe('csv: host budgets', () => {
  const csv = createCsvTool();

  it('refuses a short header row that would widen many short rows into billions of cells, before building one record', async () => {
    // 50 000 columns and 100 000 one-field rows: under 1 MiB of text, five billion properties if built.
    const header = Array.from({ length: 50_000 }, (_, index) => `c${index}`).join(',');
    const text = `${header}\n${'x\n'.repeat(100_000)}`;
    const error = await toolCallErrorOf(callTool(csv, 'parse', { text }));
    expect(error).toMatchObject({ code: 'RESULT_TOO_LARGE', details: { maxResultBytes: 1024 * 1024 } });
    expect(error.message).toBe(
      'the parsed records would be larger than 1 MiB, the most a std result may be: parse or write fewer rows per call (split the text at line breaks)',
    );
  });

  it('refuses rows of empty fields that would triple the text', async () => {
    const error = await toolCallErrorOf(callTool(csv, 'parseRows', { text: ','.repeat(1_000_000) }));
    expect(error).toMatchObject({
      code: 'RESULT_TOO_LARGE',
      message: expect.stringContaining('the parsed rows would be larger than 1 MiB'),
    });
  });

  it('refuses objects with different keys that would widen every row to all of them', async () => {
    const rows = Array.from({ length: 300 }, (_, row) =>
      Object.fromEntries(Array.from({ length: 300 }, (_, column) => [`k${row}_${column}`, 1])),
    );
    const error = await toolCallErrorOf(callTool(csv, 'stringify', { rows }));
    expect(error).toMatchObject({ code: 'RESULT_TOO_LARGE', message: expect.stringContaining('the CSV text would be larger than 1 MiB') });
  });

  it('refuses a text longer than the input limit, and works right up to the output cap', async () => {
    const small = createCsvTool({ maxInputChars: 100, maxResultBytes: 200 });
    await expect(callTool(small, 'parseRows', { text: 'x'.repeat(101) })).rejects.toThrow(/100/);
    await expect(callTool(small, 'parseRows', { text: 'x'.repeat(100) })).resolves.toEqual([['x'.repeat(100)]]);
    expect(parseCsv('a,b\n1,2\n', { maxOutputBytes: 100 })).toEqual([{ a: '1', b: '2' }]);
    expect(() => parseCsv('a,b\n1,2\n', { maxOutputBytes: 10 })).toThrow('would be larger than 10 bytes');
    expect(() => stringifyCsv([{ a: 'x'.repeat(20) }], { maxOutputBytes: 10 })).toThrow('the CSV text would be larger than 10 bytes');
  });
});
