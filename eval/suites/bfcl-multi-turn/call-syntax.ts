/**
 * A strict parser for BFCL's ground-truth calls, Python call expressions such as
 * `lockDoors(unlock=False, door=['driver', 'passenger'])` or `post_tweet('Hi', tags=['#a'])`:
 * a function name, then positional arguments followed by keyword arguments, each a Python literal —
 * strings ('…' or "…", with backslash escapes), ints, floats, True, False, None, lists, tuples and
 * dicts of literals. Anything else (expressions, names, calls, f-strings) is refused with an error
 * saying where.
 */

export interface ParsedCall {
  name: string;
  positional: unknown[];
  keyword: Record<string, unknown>;
}

export class CallSyntaxError extends Error {}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

class Reader {
  at = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new CallSyntaxError(`${what} at character ${this.at} of ${JSON.stringify(this.text)}`);
  }

  skipSpace(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at] ?? '')) this.at++;
  }

  /** Skips spaces, then consumes `token` if it is next. */
  take(token: string): boolean {
    this.skipSpace();
    if (!this.text.startsWith(token, this.at)) return false;
    this.at += token.length;
    return true;
  }

  expect(token: string): void {
    if (!this.take(token)) this.fail(`expected "${token}"`);
  }

  name(): string | undefined {
    this.skipSpace();
    const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(this.text.slice(this.at));
    if (!match) return undefined;
    this.at += match[0].length;
    return match[0];
  }

  /** One Python literal. */
  literal(): unknown {
    this.skipSpace();
    const next = this.text[this.at];
    if (next === "'" || next === '"') return this.string(next);
    if (this.take('[')) return this.sequence(']');
    if (this.take('(')) return this.sequence(')');
    if (this.take('{')) return this.dict();
    const number = /^-?(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)/.exec(this.text.slice(this.at));
    if (number) {
      this.at += number[0].length;
      return Number(number[0]);
    }
    const word = this.name();
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (word === 'None') return null;
    return this.fail(word === undefined ? 'expected a literal' : `"${word}" is not a literal`);
  }

  private string(quote: string): string {
    this.at++;
    let out = '';
    while (this.at < this.text.length) {
      const char = this.text[this.at++] ?? '';
      if (char === quote) return out;
      if (char !== '\\') {
        out += char;
        continue;
      }
      const escaped = this.text[this.at++] ?? '';
      if (!Object.hasOwn(ESCAPES, escaped)) this.fail(`unsupported escape "\\${escaped}"`);
      out += ESCAPES[escaped];
    }
    return this.fail('unterminated string');
  }

  private sequence(close: string): unknown[] {
    const items: unknown[] = [];
    while (!this.take(close)) {
      items.push(this.literal());
      if (!this.take(',')) {
        this.expect(close);
        break;
      }
    }
    return items;
  }

  private dict(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    while (!this.take('}')) {
      const key = this.literal();
      if (typeof key !== 'string' && typeof key !== 'number') this.fail('a dict key must be a string or a number');
      this.expect(':');
      out[String(key)] = this.literal();
      if (!this.take(',')) {
        this.expect('}');
        break;
      }
    }
    return out;
  }
}

/** Parses one call; throws a {@link CallSyntaxError} naming what it could not read. */
export function parseCall(text: string): ParsedCall {
  const reader = new Reader(text);
  const name = reader.name() ?? reader.fail('expected a function name');
  reader.expect('(');
  const positional: unknown[] = [];
  const keyword: Record<string, unknown> = {};
  while (!reader.take(')')) {
    const before = reader.at;
    const key = reader.name();
    if (key !== undefined && reader.take('=')) {
      if (Object.hasOwn(keyword, key)) reader.fail(`argument "${key}" given twice`);
      keyword[key] = reader.literal();
    } else {
      reader.at = before;
      if (Object.keys(keyword).length > 0) reader.fail('a positional argument after a keyword argument');
      positional.push(reader.literal());
    }
    if (!reader.take(',')) {
      reader.expect(')');
      break;
    }
  }
  reader.skipSpace();
  if (reader.at !== text.length) reader.fail('unexpected text after the call');
  return { name, positional, keyword };
}

/**
 * A call's arguments by name: positional arguments take the function's parameter names in order
 * (BFCL's function docs list them in the Python signature's order).
 */
export function namedArguments(call: ParsedCall, parameters: readonly string[]): Record<string, unknown> {
  if (call.positional.length > parameters.length)
    throw new CallSyntaxError(`${call.name} takes ${parameters.length} arguments, ${call.positional.length} given positionally`);
  const out: Record<string, unknown> = {};
  call.positional.forEach((value, index) => {
    out[parameters[index] as string] = value;
  });
  for (const [key, value] of Object.entries(call.keyword)) {
    if (Object.hasOwn(out, key)) throw new CallSyntaxError(`${call.name}: argument "${key}" given twice`);
    if (!parameters.includes(key)) throw new CallSyntaxError(`${call.name} has no parameter "${key}"`);
    out[key] = value;
  }
  return out;
}
