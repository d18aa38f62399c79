// ---------------------------------------------------------------- UTF-8, TextEncoder, TextDecoder
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length && (charCodeAt(text, index + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}
/** Writes UTF-8 (lone surrogates as U+FFFD) into `target` while whole characters fit; returns [units read, bytes written]. */
function utf8Write(text: string, target: Uint8Array, capacity: number): [read: number, written: number] {
  let read = 0,
    written = 0;
  while (read < text.length) {
    let point = charCodeAt(text, read),
      units = 1;
    if (point >= 0xd800 && point <= 0xdfff) {
      const next = read + 1 < text.length ? charCodeAt(text, read + 1) : 0;
      if (point <= 0xdbff && (next & 0xfc00) === 0xdc00) {
        point = 0x10000 + ((point - 0xd800) << 10) + (next - 0xdc00);
        units = 2;
      } else point = 0xfffd;
    }
    const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    if (written + size > capacity) break;
    if (size === 1) target[written] = point;
    else if (size === 2) {
      target[written] = 0xc0 | (point >> 6);
      target[written + 1] = 0x80 | (point & 0x3f);
    } else if (size === 3) {
      target[written] = 0xe0 | (point >> 12);
      target[written + 1] = 0x80 | ((point >> 6) & 0x3f);
      target[written + 2] = 0x80 | (point & 0x3f);
    } else {
      target[written] = 0xf0 | (point >> 18);
      target[written + 1] = 0x80 | ((point >> 12) & 0x3f);
      target[written + 2] = 0x80 | ((point >> 6) & 0x3f);
      target[written + 3] = 0x80 | (point & 0x3f);
    }
    written += size;
    read += units;
  }
  return [read, written];
}
function utf8Encode(text: string): Uint8Array {
  const bytes = new Uint8ArrayConstructor(utf8Length(text));
  utf8Write(text, bytes, typedArrayLength(bytes));
  return bytes;
}
/** WHATWG's UTF-8 decoder over a Uint8Array: U+FFFD for each error, or a TypeError when `fatal`. */
function utf8Decode(bytes: Uint8Array, fatal: boolean, ignoreBom: boolean): string {
  const length = typedArrayLength(bytes);
  const units = new Uint16ArrayConstructor(length);
  let count = 0,
    index = 0;
  if (!ignoreBom && length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) index = 3;
  let point = 0,
    needed = 0,
    seen = 0,
    lower = 0x80,
    upper = 0xbf;
  const error = () => {
    if (fatal) throw new TypeErrorConstructor('TextDecoder: the encoded data is not valid UTF-8');
    units[count++] = 0xfffd;
  };
  for (; index < length; index++) {
    const byte = bytes[index];
    if (needed === 0) {
      if (byte <= 0x7f) units[count++] = byte;
      else if (byte >= 0xc2 && byte <= 0xdf) {
        needed = 1;
        point = byte & 0x1f;
      } else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0;
        if (byte === 0xed) upper = 0x9f;
        needed = 2;
        point = byte & 0x0f;
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90;
        if (byte === 0xf4) upper = 0x8f;
        needed = 3;
        point = byte & 0x07;
      } else error();
      continue;
    }
    if (byte < lower || byte > upper) {
      point = needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      error();
      index--; // the byte starts the next sequence
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    point = (point << 6) | (byte & 0x3f);
    if (++seen !== needed) continue;
    if (point > 0xffff) {
      point -= 0x10000;
      units[count++] = 0xd800 + (point >> 10);
      units[count++] = 0xdc00 + (point & 0x3ff);
    } else units[count++] = point;
    point = needed = seen = 0;
  }
  if (needed !== 0) error();
  return unitsToString(units, count);
}

class TextEncoder {
  get encoding() {
    return 'utf-8';
  }
  // utf8Write turns lone surrogates into U+FFFD itself: no USVString pass needed.
  encode(input: unknown = ''): Uint8Array {
    return utf8Encode(StringConstructor(input));
  }
  encodeInto(source: unknown, destination: Uint8Array): { read: number; written: number } {
    requireArguments('TextEncoder.encodeInto', arguments.length, 2);
    if (typedArrayTag(destination) !== 'Uint8Array')
      throw new TypeErrorConstructor('TextEncoder.encodeInto: the destination must be a Uint8Array');
    const done = utf8Write(StringConstructor(source), destination, typedArrayLength(destination));
    return { read: done[0], written: done[1] };
  }
}
tagPrototype(TextEncoder, 'TextEncoder');
installGlobal('TextEncoder', TextEncoder);

const UTF8_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
/** TextDecoder → { fatal, ignoreBOM }. */
interface DecoderState {
  fatal: boolean;
  ignoreBOM: boolean;
}
const decoderStates = new WeakMapConstructor<object, DecoderState>();
function decoderState(decoder: object): DecoderState {
  const state = weakMapGet(decoderStates, decoder) as DecoderState | undefined;
  if (state === undefined) throw new TypeErrorConstructor('Illegal invocation: not a TextDecoder');
  return state;
}
function asciiLowerTrimmed(text: string): string {
  let start = 0,
    end = text.length;
  while (start < end && isAsciiWhitespace(charCodeAt(text, start))) start++;
  while (end > start && isAsciiWhitespace(charCodeAt(text, end - 1))) end--;
  let out = '';
  for (let index = start; index < end; index++) {
    const unit = charCodeAt(text, index);
    out += fromCharCode(unit >= 0x41 && unit <= 0x5a ? unit + 32 : unit);
  }
  return out;
}
class TextDecoder {
  constructor(label: unknown = 'utf-8', options: { fatal?: unknown; ignoreBOM?: unknown } | null | undefined = undefined) {
    const name = asciiLowerTrimmed(StringConstructor(label));
    if (!arrayIncludes(UTF8_LABELS, name)) {
      throw new RangeErrorConstructor(
        'TextDecoder: the encoding ' +
          jsonStringify(stringSlice(StringConstructor(label), 0, 64)) +
          ' is not supported in the sandbox; only UTF-8 is',
      );
    }
    // The defaults as a null-prototype object: a getter the program put on Object.prototype must not fill them in.
    const given: { fatal?: unknown; ignoreBOM?: unknown } =
      options === undefined || options === null ? ({ __proto__: null } as { fatal?: unknown; ignoreBOM?: unknown }) : options;
    weakMapSet(decoderStates, this, { __proto__: null, fatal: !!given.fatal, ignoreBOM: !!given.ignoreBOM } as DecoderState);
  }
  get encoding(): string {
    decoderState(this);
    return 'utf-8';
  }
  get fatal(): boolean {
    return decoderState(this).fatal;
  }
  get ignoreBOM(): boolean {
    return decoderState(this).ignoreBOM;
  }
  decode(input: unknown = undefined, options: { stream?: unknown } | null | undefined = undefined): string {
    const state = decoderState(this);
    if (options !== undefined && options !== null && options.stream) {
      throw new TypeErrorConstructor(
        'TextDecoder.decode: streaming ({ stream: true }) is not supported in the sandbox; decode the whole input at once',
      );
    }
    const bytes = input === undefined ? new Uint8ArrayConstructor(0) : bytesOf(input);
    if (bytes === undefined)
      throw new TypeErrorConstructor('TextDecoder.decode: the input must be an ArrayBuffer, a typed array or a DataView');
    return utf8Decode(bytes, state.fatal, state.ignoreBOM);
  }
}
tagPrototype(TextDecoder, 'TextDecoder');
installGlobal('TextDecoder', TextDecoder);
