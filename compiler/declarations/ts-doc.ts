/**
 * A TSDoc comment for `paragraphs` (each may hold newlines) followed by block `tags` (`@default 3`),
 * indented by `indent`, or '' when there is nothing to say. Text is made safe: a comment terminator in it cannot close the
 * comment early and a line of text starting with `@` cannot become a tag.
 */
export function docComment(paragraphs: readonly (string | undefined)[], indent = '', tags: readonly string[] = []): string {
  const text = paragraphs
    .filter((paragraph): paragraph is string => paragraph !== undefined && paragraph.trim() !== '')
    .flatMap((paragraph, index) => [...(index > 0 ? [''] : []), ...splitLines(paragraph.trim())])
    .map((line) => escape(line).replace(/^(\s*)@/, '$1\\@'));
  const lines = [...text, ...tags.map((tag) => escape(tag.replace(/\s+/g, ' ')))];
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => (line === '' ? `${indent} *\n` : `${indent} * ${line}\n`)).join('')}${indent} */\n`;
}

function splitLines(text: string): string[] {
  return text.split(/\r\n?|\n|\u2028|\u2029/);
}

function escape(line: string): string {
  return line.trimEnd().replace(/\*\//g, '*\\/');
}
