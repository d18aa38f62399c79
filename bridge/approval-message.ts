/**
 * What a person is asked to approve. The program controls the arguments, so the text must show them
 * exactly and must not be able to steer a terminal: no cursor moves, no carriage return that overwrites
 * a line, no bidi override that reverses a file name, no zero-width character that hides a difference.
 */

/**
 * C0 controls (ESC, CR, BEL, backspace, …), DEL, C1 controls, the soft hyphen, bidi embeddings, overrides,
 * isolates and marks, zero-width characters, line and paragraph separators, the BOM and interlinear
 * annotation marks. Newline and tab are listed apart: output keeps them, an approval does not.
 */
// Matching control characters is the point of these two patterns.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_WITH_LAYOUT = /[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every character that can steer a terminal or hide text written visibly as an escape:
 * ESC → `\x1b`, CR → `\r`, U+202E → `\u202e`. Newlines and tabs are kept unless `keepLayout` is false.
 *
 * @example
 * escapeControlCharacters('a\u001b[2Jb\u202ec') // → 'a\\x1b[2Jb\\u202ec'
 */
export function escapeControlCharacters(text: string, options: { keepLayout?: boolean } = {}): string {
  const pattern = options.keepLayout === false ? UNSAFE_WITH_LAYOUT : UNSAFE;
  return text.replace(pattern, (character) => NAMED[character] ?? hexEscape(character));
}

/**
 * `JSON.stringify(value)` that is safe on a terminal and still valid JSON: the characters JSON leaves as
 * they are (DEL, C1 controls, bidi and zero-width characters) become `\uXXXX` escapes.
 */
export function toTerminalJson(value: unknown, space?: number): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value, null, space);
  } catch {
    json = undefined;
  }
  return (json ?? String(value)).replace(UNSAFE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The exact arguments of a call as they are shown for approval: JSON, every string quoted, nothing cut
 * short, nothing that can steer a terminal.
 */
export function formatArguments(args: unknown): string {
  return toTerminalJson(args ?? {});
}

/**
 * Fills a `{param}` template from the call's arguments. Unknown names stay as written, so a typo in a
 * template shows up in the prompt instead of silently becoming empty. Inserted values are written
 * visibly: a control or bidi character in an argument cannot disguise the message.
 *
 * @example
 * fillTemplate('Delete {path}?', { path: 'a.txt' }) // → 'Delete a.txt?'
 */
export function fillTemplate(template: string, args: Record<string, unknown>): string {
  return template.replace(/\{([A-Za-z_$][\w$.-]*)\}/g, (placeholder, name: string) => {
    if (!Object.hasOwn(args, name)) return placeholder;
    const value = args[name];
    return typeof value === 'string' ? escapeControlCharacters(value, { keepLayout: false }) : formatArguments(value);
  });
}

/** The prompt shown when no better message exists: `Allow std-fs.remove(path: "a.txt")?`, every value in full. */
export function defaultApprovalMessage(capability: string, functionName: string, args: Record<string, unknown>): string {
  const summary = Object.entries(args)
    .map(([name, value]) => `${escapeControlCharacters(name, { keepLayout: false })}: ${formatArguments(value)}`)
    .join(', ');
  return `Allow ${capability}.${functionName}(${summary})?`;
}

function hexEscape(character: string): string {
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
