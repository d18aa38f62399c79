export interface FrontMatterDocument {
  attributes: Record<string, unknown>;
  body: string;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/**
 * Splits a `.mdt` file into its YAML front matter and Markdown body. A file without front matter is
 * all body. Throws (with the YAML parser's message) when the front matter is not a YAML mapping.
 */
export async function parseFrontMatter(text: string): Promise<FrontMatterDocument> {
  const content = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const match = FENCE.exec(content);
  if (!match) return { attributes: {}, body: content.trim() };
  // yaml loads with the first agent file that has front matter, not with the package.
  const { parse } = await import('yaml');
  const data: unknown = parse(match[1] ?? '');
  if (data !== null && data !== undefined && (typeof data !== 'object' || Array.isArray(data))) {
    throw new Error('front matter must be a YAML mapping (key: value lines)');
  }
  return { attributes: (data ?? {}) as Record<string, unknown>, body: content.slice(match[0].length).trim() };
}
