/**
 * CSV as RFC 4180 describes it: fields separated by a delimiter, quoted with `"` when they hold the
 * delimiter, a quote (written `""`) or a line break; rows end with LF or CRLF.
 */
import { OutputTooLargeError } from './std-limits.js';

export interface CsvOptions {
  /** One character; default `,`. */
  delimiter?: string;
  /**
   * Stop with an `OutputTooLargeError` once the result would pass this size: its JSON for the parsers
   * (a short header row can make every row as wide as the header), its text for `stringifyCsv`.
   */
  maxOutputBytes?: number;
}

/** JSON bytes a field costs at least: its quotes and the comma after it. */
const FIELD_OVERHEAD = 3;

/** Parses CSV text into rows of fields. A trailing line break does not make an empty last row. */
export function parseCsvRows(text: string, options: CsvOptions = {}): string[][] {
  const delimiter = checkDelimiter(options.delimiter);
  const maxOutputBytes = options.maxOutputBytes ?? Infinity;
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStarted = false;
  let index = 0;
  let outputBytes = 2;

  const endField = (): void => {
    // A text of delimiters alone makes three bytes of output per byte of input: counted as it grows.
    outputBytes += field.length + FIELD_OVERHEAD;
    if (outputBytes > maxOutputBytes) throw new OutputTooLargeError('the parsed rows', maxOutputBytes);
    row.push(field);
    field = '';
    fieldStarted = false;
  };
  const endRow = (): void => {
    endField();
    rows.push(row);
    row = [];
  };

  while (index < input.length) {
    const char = input[index] as string;
    if (quoted) {
      if (char === '"') {
        if (input[index + 1] === '"') {
          field += '"';
          index += 2;
          continue;
        }
        quoted = false;
      } else {
        field += char;
      }
      index += 1;
      continue;
    }
    if (char === '"' && !fieldStarted) {
      quoted = true;
      fieldStarted = true;
    } else if (char === delimiter) {
      endField();
    } else if (char === '\n' || char === '\r') {
      endRow();
      if (char === '\r' && input[index + 1] === '\n') index += 1;
    } else {
      field += char;
      fieldStarted = true;
    }
    index += 1;
  }
  if (quoted) throw new Error('unterminated quoted field: a field opened with " is never closed');
  if (fieldStarted || row.length > 0) endRow();
  return rows;
}

/**
 * Parses CSV whose first row names the columns into one object per row. Blank lines are skipped;
 * missing trailing fields become `""`; repeated column names get `_2`, `_3`, …
 */
export function parseCsv(text: string, options: CsvOptions = {}): Record<string, string>[] {
  const rows = parseCsvRows(text, options).filter((row) => !(row.length === 1 && row[0] === ''));
  const [header, ...body] = rows;
  if (header === undefined) return [];
  const seen = new Map<string, number>();
  const columns = header.map((name) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name}_${count}`;
  });
  // Each record repeats every column name: measured before one is built, since 50 000 columns and
  // 100 000 one-field rows (under 1 MiB of text) would otherwise make five billion properties.
  const keyBytes = columns.reduce((sum, column) => sum + column.length + FIELD_OVERHEAD + 1, 2);
  const maxOutputBytes = options.maxOutputBytes ?? Infinity;
  let outputBytes = 2;
  for (const row of body) {
    outputBytes += keyBytes + row.reduce((sum, value) => sum + value.length + FIELD_OVERHEAD, 0);
    if (outputBytes > maxOutputBytes) throw new OutputTooLargeError('the parsed records', maxOutputBytes);
  }
  return body.map((row) => {
    const record: Record<string, string> = {};
    // Defined, not assigned, and checked as own keys: a column may be named `__proto__` or `constructor`.
    const put = (key: string, value: string): void =>
      void Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
    row.forEach((value, index) => put(columns[index] ?? `column${index + 1}`, value));
    for (const column of columns) if (!Object.hasOwn(record, column)) put(column, '');
    return record;
  });
}

/**
 * Writes rows as CSV. Objects: the columns are `columns` or every key in order of first appearance,
 * with a header row. Arrays: written as they are. `null`/`undefined` become empty fields; objects JSON.
 */
export function stringifyCsv(
  rows: readonly unknown[],
  options: CsvOptions & { columns?: readonly string[]; header?: boolean } = {},
): string {
  const delimiter = checkDelimiter(options.delimiter);
  const maxOutputBytes = options.maxOutputBytes ?? Infinity;
  const lines: string[] = [];
  let length = 0;
  const write = (fields: readonly unknown[]): void => {
    // Objects with different keys widen every row to all the keys seen: checked line by line.
    const line = fields.map((field) => quote(cell(field), delimiter)).join(delimiter);
    length += line.length + 1;
    if (length > maxOutputBytes) throw new OutputTooLargeError('the CSV text', maxOutputBytes);
    lines.push(line);
  };
  if (rows.every((row) => Array.isArray(row))) {
    if (options.columns !== undefined && options.header !== false) write(options.columns);
    for (const row of rows) write(row as unknown[]);
  } else {
    const records = rows.map((row) =>
      typeof row === 'object' && row !== null && !Array.isArray(row) ? (row as Record<string, unknown>) : { value: row },
    );
    const columns = options.columns ?? [...new Set(records.flatMap((record) => Object.keys(record)))];
    if (options.header !== false) write(columns);
    for (const record of records) write(columns.map((column) => record[column]));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function quote(value: string, delimiter: string): string {
  return value.includes(delimiter) || /["\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

function checkDelimiter(delimiter: string = ','): string {
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new Error(`delimiter must be one character other than a quote or a line break (got ${JSON.stringify(delimiter)})`);
  }
  return delimiter;
}
