// ---------------------------------------------------------------- atob / btoa (forgiving-base64)
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = new Int16Array(128);
// Not .fill: this runs when a program first uses atob or btoa, after it may have replaced TypedArray methods.
for (let index = 0; index < 128; index++) BASE64_VALUES[index] = -1;
for (let index = 0; index < 64; index++) BASE64_VALUES[charCodeAt(BASE64_ALPHABET, index)] = index;
const isAsciiWhitespace = (unit: number): boolean => unit === 0x20 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d;

function atob(data: unknown): string {
  requireArguments('atob', arguments.length, 1);
  const text = StringConstructor(data);
  const invalid = () => new DOMException('atob: the string to decode is not correctly encoded base64', 'InvalidCharacterError');
  const sextets = new Uint8ArrayConstructor(text.length);
  let length = 0,
    padding = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (isAsciiWhitespace(unit)) continue;
    if (unit === 0x3d) {
      padding++;
      length++;
      continue;
    }
    // Only padding may follow padding, and only two of it (checked below).
    if (padding > 0 || unit >= 128 || BASE64_VALUES[unit] < 0) throw invalid();
    sextets[length++] = BASE64_VALUES[unit];
  }
  if (padding > 0) {
    if (padding > 2 || length % 4 !== 0) throw invalid();
    length -= padding;
  }
  if (length % 4 === 1) throw invalid();
  const units = new Uint16ArrayConstructor(mathFloor((length * 3) / 4));
  let count = 0,
    bits = 0,
    buffered = 0;
  for (let index = 0; index < length; index++) {
    bits = (bits << 6) | sextets[index];
    buffered += 6;
    if (buffered >= 8) {
      buffered -= 8;
      units[count++] = (bits >> buffered) & 0xff;
    }
  }
  return unitsToString(units, count);
}
function btoa(data: unknown): string {
  requireArguments('btoa', arguments.length, 1);
  const text = StringConstructor(data);
  const units = new Uint16ArrayConstructor((((text.length + 2) / 3) | 0) * 4);
  let count = 0;
  for (let index = 0; index < text.length; index += 3) {
    const remaining = text.length - index;
    const a = charCodeAt(text, index),
      b = remaining > 1 ? charCodeAt(text, index + 1) : 0,
      c = remaining > 2 ? charCodeAt(text, index + 2) : 0;
    if (a > 0xff || b > 0xff || c > 0xff)
      throw new DOMException('btoa: the string to encode contains characters outside of the Latin1 range', 'InvalidCharacterError');
    const triple = (a << 16) | (b << 8) | c;
    units[count++] = charCodeAt(BASE64_ALPHABET, triple >> 18);
    units[count++] = charCodeAt(BASE64_ALPHABET, (triple >> 12) & 63);
    units[count++] = remaining > 1 ? charCodeAt(BASE64_ALPHABET, (triple >> 6) & 63) : 0x3d;
    units[count++] = remaining > 2 ? charCodeAt(BASE64_ALPHABET, triple & 63) : 0x3d;
  }
  return unitsToString(units, count);
}
installGlobal('atob', atob);
installGlobal('btoa', btoa);
