import { describe, expect, it } from 'vitest';
import { docComment } from './ts-doc.js';

describe('docComment', () => {
  it('writes nothing for no text', () => {
    expect(docComment([undefined, '  '])).toBe('');
  });

  it('keeps one line on one line', () => {
    expect(docComment(['Get all scheduled trains'], '  ')).toBe('  /** Get all scheduled trains */\n');
  });

  it('cannot be closed early, turns line-initial @ into text, keeps tags apart', () => {
    expect(docComment(['Ends */ here, `code`\r\n@param fake\n  @returns x', 'Second'], '', ['@default "*/"'])).toBe(
      [
        '/**',
        ' * Ends *\\/ here, `code`',
        ' * \\@param fake',
        ' *   \\@returns x',
        ' *',
        ' * Second',
        ' * @default "*\\/"',
        ' */',
        '',
      ].join('\n'),
    );
  });
});
