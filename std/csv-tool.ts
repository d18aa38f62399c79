import { z } from 'zod';
import { defineFunction, defineTool } from '../core/index.js';
import { parseCsv, parseCsvRows, stringifyCsv } from './csv.js';
import { DEFAULT_STD_LIMITS, withOutputLimit, type StdLimits } from './std-limits.js';

const delimiter = z.string().length(1).default(',').describe('Field separator, one character (default ","; use ";" or "\\t" as needed).');

/** `csv`: parse and write comma-separated (or other delimiter) text, within the result cap. */
export function createCsvTool(limits: Partial<Pick<StdLimits, 'maxResultBytes' | 'maxInputChars'>> = {}) {
  const maxOutputBytes = limits.maxResultBytes ?? DEFAULT_STD_LIMITS.maxResultBytes;
  const text = z.string().max(limits.maxInputChars ?? DEFAULT_STD_LIMITS.maxInputChars);
  const advice = 'parse or write fewer rows per call (split the text at line breaks)';
  return defineTool({
    name: 'csv',
    description: 'Parse CSV text into rows and write rows as CSV (quotes, escaped quotes and line breaks inside fields handled).',
    functions: {
      parse: defineFunction({
        description: 'Parses CSV whose first row is a header into one object per row, keyed by column name (all values are strings).',
        parameters: z.object({ text, delimiter }),
        returns: z.array(z.record(z.string(), z.string())),
        handler: ({ text, delimiter }, context) => withOutputLimit(context, advice, () => parseCsv(text, { delimiter, maxOutputBytes })),
      }),
      parseRows: defineFunction({
        description: 'Parses CSV into an array of rows, each an array of field strings (no header handling).',
        parameters: z.object({ text, delimiter }),
        returns: z.array(z.array(z.string())),
        handler: ({ text, delimiter }, context) =>
          withOutputLimit(context, advice, () => parseCsvRows(text, { delimiter, maxOutputBytes })),
      }),
      stringify: defineFunction({
        description:
          'Writes rows as CSV text. Objects get a header row (columns: the given ones, or every key in order of appearance); arrays are written as they are.',
        parameters: z.object({
          rows: z.array(z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())])),
          columns: z.array(z.string()).optional().describe('Column order (and header) to use.'),
          header: z.boolean().default(true).describe('Write the header row.'),
          delimiter,
        }),
        returns: z.string(),
        handler: ({ rows, columns, header, delimiter }, context) =>
          withOutputLimit(context, advice, () =>
            stringifyCsv(rows, { delimiter, header, maxOutputBytes, ...(columns === undefined ? {} : { columns }) }),
          ),
      }),
    },
  });
}
