/**
 * The Web platform globals a program may use, as JavaScript the bootstrap evaluates inside its own
 * strict closure before any program code (see bootstrap-source.ts): timers, `queueMicrotask`,
 * `structuredClone`, `atob`/`btoa`, `TextEncoder`/`TextDecoder`, `URL`/`URLSearchParams` and
 * `DOMException`. `runtime/sandbox-globals.ts` declares exactly these to the type checker, and
 * `runtime/sandbox-globals.test.ts` checks that both agree.
 *
 * Like the bootstrap, this code is hostile ground: functions that run after the program started use
 * only intrinsics captured here or by the bootstrap (`uncurry`, `defineProperty`, `mapGet`, …), never
 * a prototype method looked up at call time, `for…of` over an internal array, array destructuring or
 * `push`, so a program that edits `Array.prototype`, `String.prototype`, `Map.prototype` or the
 * iterator protocol changes only its own values. Internal state is in WeakMaps and closures.
 *
 * What it gets from the bootstrap besides the captured intrinsics: `timerHost(start, id, delay,
 * repeat)` (the host arms or clears a timer; ids and numbers only), `urlHost(operation, a, b, c)`
 * (Node's WHATWG URL parser; strings in, one string out) and `describeError`/`complete` (a timer
 * callback that throws ends the run with its error, as an uncaught exception ends a Node process).
 * It defines `wake(id)`, which the host calls when a timer is due.
 */
import { TIMER_LIMITS } from '../host/sandbox-timers.js';
import { URL_INVALID, URL_LIMITS, URL_TOO_LONG } from '../host/sandbox-url-host.js';

export const SANDBOX_GLOBALS_SOURCE = String.raw`
// ---------------------------------------------------------------- captured intrinsics
const reflectApply = Reflect.apply, reflectOwnKeys = Reflect.ownKeys, getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const NumberConstructor = Number, BooleanConstructor = Boolean, ObjectConstructor = Object, ObjectCreate = Object.create, ObjectPrototype = Object.prototype;
const fromCharCode = String.fromCharCode;
const mathFloor = Math.floor, SymbolIterator = Symbol.iterator, SymbolToStringTag = Symbol.toStringTag;
const ArrayConstructor = Array, DateConstructor = Date, RegExpConstructor = RegExp, SetConstructor = Set;
const ArrayBufferConstructor = ArrayBuffer, DataViewConstructor = DataView, Uint8ArrayConstructor = Uint8Array, Uint16ArrayConstructor = Uint16Array;
const charCodeAt = uncurry(String.prototype.charCodeAt), arraySort = uncurry(Array.prototype.sort);
const getterOf = (object, key) => uncurry(getOwnPropertyDescriptor(object, key).get);
const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
const typedArrayTag = getterOf(TypedArrayPrototype, SymbolToStringTag), typedArrayBuffer = getterOf(TypedArrayPrototype, 'buffer');
const typedArrayByteOffset = getterOf(TypedArrayPrototype, 'byteOffset'), typedArrayByteLength = getterOf(TypedArrayPrototype, 'byteLength');
const typedArrayLength = getterOf(TypedArrayPrototype, 'length'), typedArraySet = uncurry(TypedArrayPrototype.set);
const arrayBufferByteLength = getterOf(ArrayBuffer.prototype, 'byteLength');
const dataViewBuffer = getterOf(DataView.prototype, 'buffer'), dataViewByteOffset = getterOf(DataView.prototype, 'byteOffset'), dataViewByteLength = getterOf(DataView.prototype, 'byteLength');
const dateGetTime = uncurry(Date.prototype.getTime), regExpSource = getterOf(RegExp.prototype, 'source'), regExpFlags = getterOf(RegExp.prototype, 'flags');
const setAdd = uncurry(Set.prototype.add), weakMapHas = uncurry(WeakMap.prototype.has), weakSetHas = uncurry(WeakSet.prototype.has), weakRefDeref = uncurry(WeakRef.prototype.deref);
const booleanValueOf = uncurry(Boolean.prototype.valueOf), numberValueOf = uncurry(Number.prototype.valueOf), stringValueOf = uncurry(String.prototype.valueOf);
const bigIntValueOf = uncurry(BigInt.prototype.valueOf), symbolValueOf = uncurry(Symbol.prototype.valueOf);
const RegExpPrototype = RegExp.prototype, MapPrototype = Map.prototype, SetPrototype = Set.prototype, ArrayPrototype = Array.prototype;
const TYPED_ARRAYS = {
  __proto__: null, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array,
};
const ERROR_CONSTRUCTORS = { __proto__: null, Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };

// ---------------------------------------------------------------- helpers
function installGlobal(name, value) {
  defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
}
function tagPrototype(constructor, tag) {
  defineProperty(constructor.prototype, SymbolToStringTag, { value: tag, writable: false, enumerable: false, configurable: true });
}
function defineData(target, key, value) {
  defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
function requireArguments(name, given, needed) {
  if (given < needed) throw new TypeErrorConstructor(name + ': ' + needed + ' argument' + (needed === 1 ? '' : 's') + ' required, but only ' + given + ' present');
}
/** WebIDL USVString: a string with each lone surrogate replaced by U+FFFD. */
function toUsvString(value) {
  const text = StringConstructor(value);
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (unit >= 0xD800 && unit <= 0xDFFF) return wellFormed(text);
  }
  return text;
}
function wellFormed(text) {
  const units = new Uint16ArrayConstructor(text.length);
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (unit >= 0xD800 && unit <= 0xDBFF && index + 1 < text.length && (charCodeAt(text, index + 1) & 0xFC00) === 0xDC00) {
      units[index] = unit;
      units[index + 1] = charCodeAt(text, index + 1);
      index++;
    } else {
      units[index] = unit >= 0xD800 && unit <= 0xDFFF ? 0xFFFD : unit;
    }
  }
  return unitsToString(units, text.length);
}
const STRING_CHUNK = 8192;
/**
 * The string of the first \`count\` UTF-16 code units in \`units\` (a Uint16Array). fromCharCode takes
 * them as arguments, a chunk at a time; each chunk is a view with an own \`length\`, so the arguments
 * list is read without the TypedArray.prototype getters a program may have replaced.
 */
function unitsToString(units, count) {
  const buffer = typedArrayBuffer(units), offset = typedArrayByteOffset(units);
  let text = '';
  for (let start = 0; start < count; start += STRING_CHUNK) {
    const length = count - start < STRING_CHUNK ? count - start : STRING_CHUNK;
    const view = new Uint16ArrayConstructor(buffer, offset + start * 2, length);
    defineProperty(view, 'length', { value: length });
    text += reflectApply(fromCharCode, undefined, view);
  }
  return text;
}
/** A Uint8Array over the bytes of an ArrayBuffer or a view, or undefined when \`source\` is neither. */
function bytesOf(source) {
  if (typedArrayTag(source) !== undefined) return new Uint8ArrayConstructor(typedArrayBuffer(source), typedArrayByteOffset(source), typedArrayByteLength(source));
  try {
    return new Uint8ArrayConstructor(dataViewBuffer(source), dataViewByteOffset(source), dataViewByteLength(source));
  } catch {
    // not a DataView
  }
  try {
    arrayBufferByteLength(source);
    return new Uint8ArrayConstructor(source);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- DOMException
const DOM_EXCEPTION_CODES = {
  __proto__: null, IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
  NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12,
  InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18,
  NetworkError: 19, AbortError: 20, URLMismatchError: 21, QuotaExceededError: 22, TimeoutError: 23,
  InvalidNodeTypeError: 24, DataCloneError: 25,
};
class DOMException extends ErrorConstructor {
  constructor(message = '', name = 'Error') {
    super(StringConstructor(message));
    const text = StringConstructor(name);
    defineProperty(this, 'name', { value: text, writable: true, enumerable: false, configurable: true });
    const code = DOM_EXCEPTION_CODES[text];
    defineProperty(this, 'code', { value: code === undefined ? 0 : code, writable: true, enumerable: false, configurable: true });
  }
}
installGlobal('DOMException', DOMException);

// ---------------------------------------------------------------- timers
const MAX_PENDING_TIMERS = ${TIMER_LIMITS.maxPending}, MAX_TIMERS_PER_RUN = ${TIMER_LIMITS.maxPerRun}, MAX_TIMER_DELAY = ${TIMER_LIMITS.maxDelayMs};
/** id → { handler, args, repeat, delay, nesting } of every pending timer. */
const timers = new MapConstructor();
let timersCreated = 0, lastTimerId = 0, timerNesting = 0;

function timerLimitError(message) {
  const error = new RangeErrorConstructor(message);
  defineProperty(error, 'code', { value: 'TIMER_LIMIT', writable: true, enumerable: true, configurable: true });
  return error;
}
/** HTML's timer delay: whole ms, 0 for NaN or negative, at most 2^31 − 1, at least 4 ms past five nested levels. */
function timerDelay(timeout, nesting) {
  let delay = NumberConstructor(timeout);
  if (!(delay > 0)) delay = 0;
  else if (delay > MAX_TIMER_DELAY) delay = MAX_TIMER_DELAY;
  else delay = mathFloor(delay);
  return nesting > 5 && delay < 4 ? 4 : delay;
}
function startTimer(kind, handler, timeout, args, repeat) {
  if (typeof handler !== 'function') throw new TypeErrorConstructor(kind + ' takes a function to call; the sandbox does not evaluate strings of code');
  // The delay first: converting it may run the program's valueOf, which may start timers itself. The
  // limits are checked after that, right before this timer is counted, so none is passed.
  const nesting = timerNesting + 1;
  const delay = timerDelay(timeout, nesting);
  if (mapSize(timers) >= MAX_PENDING_TIMERS) {
    throw timerLimitError(kind + ': ' + MAX_PENDING_TIMERS + ' timers are already pending in this run, the sandbox\'s limit; clear the ones you no longer need (clearTimeout, clearInterval) or wait for some to fire');
  }
  if (timersCreated >= MAX_TIMERS_PER_RUN) {
    throw timerLimitError(kind + ': this run already created ' + MAX_TIMERS_PER_RUN + ' timers, the sandbox\'s limit per run; wait with fewer, longer timers (or one setInterval) instead');
  }
  const id = ++lastTimerId;
  timersCreated++;
  mapSet(timers, id, { __proto__: null, handler, args, repeat, delay, nesting });
  timerHost(true, id, delay, repeat);
  return id;
}
function stopTimer(id) {
  if (typeof id !== 'number' || !mapDelete(timers, id)) return;
  timerHost(false, id, 0, false);
}
// Named functions, as in a browser (setTimeout.name is 'setTimeout').
function setTimeout(handler, timeout = 0, ...args) { return startTimer('setTimeout', handler, timeout, args, false); }
function setInterval(handler, timeout = 0, ...args) { return startTimer('setInterval', handler, timeout, args, true); }
function clearTimeout(id) { stopTimer(id); }
function clearInterval(id) { stopTimer(id); }
installGlobal('setTimeout', setTimeout);
installGlobal('setInterval', setInterval);
installGlobal('clearTimeout', clearTimeout);
installGlobal('clearInterval', clearInterval);

/** An error nothing in the program can catch any more ends the run with it (like an uncaught exception in Node). */
function reportUncaught(thrown) {
  complete(false, stringifyJson(describeError(thrown), false));
}
/**
 * Called by the host when timer \`id\` is due. Returns the delay to arm an interval with again, or -1
 * when the timer is done (a one-shot timer, a cleared one, or a callback that threw).
 */
function wake(id) {
  const timer = mapGet(timers, id);
  if (timer === undefined) return -1;
  if (!timer.repeat) mapDelete(timers, id);
  timerNesting = timer.nesting;
  try {
    reflectApply(timer.handler, globalThis, timer.args);
  } catch (thrown) {
    reportUncaught(thrown);
    return -1;
  } finally {
    timerNesting = 0;
  }
  if (!timer.repeat || mapGet(timers, id) !== timer) return -1;
  timer.nesting++;
  return timerDelay(timer.delay, timer.nesting);
}

// An async function: \`await\` queues the job without looking up anything a program can replace
// (Promise.prototype.then, the species constructor).
async function runMicrotask(callback) {
  await undefined;
  try {
    reflectApply(callback, undefined, []);
  } catch (thrown) {
    reportUncaught(thrown);
  }
}
function queueMicrotask(callback) {
  if (typeof callback !== 'function') throw new TypeErrorConstructor('queueMicrotask takes a function to call');
  runMicrotask(callback);
}
installGlobal('queueMicrotask', queueMicrotask);

// ---------------------------------------------------------------- atob / btoa (forgiving-base64)
const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = new Int16Array(128).fill(-1);
for (let index = 0; index < 64; index++) BASE64_VALUES[charCodeAt(BASE64_ALPHABET, index)] = index;
const isAsciiWhitespace = (unit) => unit === 0x20 || unit === 0x09 || unit === 0x0A || unit === 0x0C || unit === 0x0D;

function atob(data) {
  requireArguments('atob', arguments.length, 1);
  const text = StringConstructor(data);
  const invalid = () => new DOMException('atob: the string to decode is not correctly encoded base64', 'InvalidCharacterError');
  const sextets = new Uint8ArrayConstructor(text.length);
  let length = 0, padding = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (isAsciiWhitespace(unit)) continue;
    if (unit === 0x3D) { padding++; length++; continue; }
    // Only padding may follow padding, and only two of it (checked below).
    if (padding > 0 || unit >= 128 || BASE64_VALUES[unit] < 0) throw invalid();
    sextets[length++] = BASE64_VALUES[unit];
  }
  if (padding > 0) {
    if (padding > 2 || length % 4 !== 0) throw invalid();
    length -= padding;
  }
  if (length % 4 === 1) throw invalid();
  const units = new Uint16ArrayConstructor(mathFloor(length * 3 / 4));
  let count = 0, bits = 0, buffered = 0;
  for (let index = 0; index < length; index++) {
    bits = (bits << 6) | sextets[index];
    buffered += 6;
    if (buffered >= 8) {
      buffered -= 8;
      units[count++] = (bits >> buffered) & 0xFF;
    }
  }
  return unitsToString(units, count);
}
function btoa(data) {
  requireArguments('btoa', arguments.length, 1);
  const text = StringConstructor(data);
  const units = new Uint16ArrayConstructor(((text.length + 2) / 3 | 0) * 4);
  let count = 0;
  for (let index = 0; index < text.length; index += 3) {
    const remaining = text.length - index;
    const a = charCodeAt(text, index), b = remaining > 1 ? charCodeAt(text, index + 1) : 0, c = remaining > 2 ? charCodeAt(text, index + 2) : 0;
    if (a > 0xFF || b > 0xFF || c > 0xFF) throw new DOMException('btoa: the string to encode contains characters outside of the Latin1 range', 'InvalidCharacterError');
    const triple = (a << 16) | (b << 8) | c;
    units[count++] = charCodeAt(BASE64_ALPHABET, triple >> 18);
    units[count++] = charCodeAt(BASE64_ALPHABET, (triple >> 12) & 63);
    units[count++] = remaining > 1 ? charCodeAt(BASE64_ALPHABET, (triple >> 6) & 63) : 0x3D;
    units[count++] = remaining > 2 ? charCodeAt(BASE64_ALPHABET, triple & 63) : 0x3D;
  }
  return unitsToString(units, count);
}
installGlobal('atob', atob);
installGlobal('btoa', btoa);

// ---------------------------------------------------------------- UTF-8, TextEncoder, TextDecoder
function utf8Length(text) {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xD800 && unit <= 0xDBFF && index + 1 < text.length && (charCodeAt(text, index + 1) & 0xFC00) === 0xDC00) { bytes += 4; index++; }
    else bytes += 3;
  }
  return bytes;
}
/** Writes UTF-8 (lone surrogates as U+FFFD) into \`target\` while whole characters fit; returns [units read, bytes written]. */
function utf8Write(text, target, capacity) {
  let read = 0, written = 0;
  while (read < text.length) {
    let point = charCodeAt(text, read), units = 1;
    if (point >= 0xD800 && point <= 0xDFFF) {
      const next = read + 1 < text.length ? charCodeAt(text, read + 1) : 0;
      if (point <= 0xDBFF && (next & 0xFC00) === 0xDC00) { point = 0x10000 + ((point - 0xD800) << 10) + (next - 0xDC00); units = 2; }
      else point = 0xFFFD;
    }
    const size = point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    if (written + size > capacity) break;
    if (size === 1) target[written] = point;
    else if (size === 2) { target[written] = 0xC0 | (point >> 6); target[written + 1] = 0x80 | (point & 0x3F); }
    else if (size === 3) { target[written] = 0xE0 | (point >> 12); target[written + 1] = 0x80 | ((point >> 6) & 0x3F); target[written + 2] = 0x80 | (point & 0x3F); }
    else { target[written] = 0xF0 | (point >> 18); target[written + 1] = 0x80 | ((point >> 12) & 0x3F); target[written + 2] = 0x80 | ((point >> 6) & 0x3F); target[written + 3] = 0x80 | (point & 0x3F); }
    written += size;
    read += units;
  }
  return [read, written];
}
function utf8Encode(text) {
  const bytes = new Uint8ArrayConstructor(utf8Length(text));
  utf8Write(text, bytes, typedArrayLength(bytes));
  return bytes;
}
/** WHATWG's UTF-8 decoder over a Uint8Array: U+FFFD for each error, or a TypeError when \`fatal\`. */
function utf8Decode(bytes, fatal, ignoreBom) {
  const length = typedArrayLength(bytes);
  const units = new Uint16ArrayConstructor(length);
  let count = 0, index = 0;
  if (!ignoreBom && length >= 3 && bytes[0] === 0xEF && bytes[1] === 0xBB && bytes[2] === 0xBF) index = 3;
  let point = 0, needed = 0, seen = 0, lower = 0x80, upper = 0xBF;
  const error = () => {
    if (fatal) throw new TypeErrorConstructor('TextDecoder: the encoded data is not valid UTF-8');
    units[count++] = 0xFFFD;
  };
  for (; index < length; index++) {
    const byte = bytes[index];
    if (needed === 0) {
      if (byte <= 0x7F) units[count++] = byte;
      else if (byte >= 0xC2 && byte <= 0xDF) { needed = 1; point = byte & 0x1F; }
      else if (byte >= 0xE0 && byte <= 0xEF) { if (byte === 0xE0) lower = 0xA0; if (byte === 0xED) upper = 0x9F; needed = 2; point = byte & 0x0F; }
      else if (byte >= 0xF0 && byte <= 0xF4) { if (byte === 0xF0) lower = 0x90; if (byte === 0xF4) upper = 0x8F; needed = 3; point = byte & 0x07; }
      else error();
      continue;
    }
    if (byte < lower || byte > upper) {
      point = needed = seen = 0; lower = 0x80; upper = 0xBF;
      error();
      index--; // the byte starts the next sequence
      continue;
    }
    lower = 0x80; upper = 0xBF;
    point = (point << 6) | (byte & 0x3F);
    if (++seen !== needed) continue;
    if (point > 0xFFFF) { point -= 0x10000; units[count++] = 0xD800 + (point >> 10); units[count++] = 0xDC00 + (point & 0x3FF); }
    else units[count++] = point;
    point = needed = seen = 0;
  }
  if (needed !== 0) error();
  return unitsToString(units, count);
}

class TextEncoder {
  get encoding() { return 'utf-8'; }
  // utf8Write turns lone surrogates into U+FFFD itself: no USVString pass needed.
  encode(input = '') { return utf8Encode(StringConstructor(input)); }
  encodeInto(source, destination) {
    requireArguments('TextEncoder.encodeInto', arguments.length, 2);
    if (typedArrayTag(destination) !== 'Uint8Array') throw new TypeErrorConstructor('TextEncoder.encodeInto: the destination must be a Uint8Array');
    const done = utf8Write(StringConstructor(source), destination, typedArrayLength(destination));
    return { read: done[0], written: done[1] };
  }
}
tagPrototype(TextEncoder, 'TextEncoder');
installGlobal('TextEncoder', TextEncoder);

const UTF8_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
/** TextDecoder → { fatal, ignoreBOM }. */
const decoderStates = new WeakMapConstructor();
function decoderState(decoder) {
  const state = weakMapGet(decoderStates, decoder);
  if (state === undefined) throw new TypeErrorConstructor('Illegal invocation: not a TextDecoder');
  return state;
}
function asciiLowerTrimmed(text) {
  let start = 0, end = text.length;
  while (start < end && isAsciiWhitespace(charCodeAt(text, start))) start++;
  while (end > start && isAsciiWhitespace(charCodeAt(text, end - 1))) end--;
  let out = '';
  for (let index = start; index < end; index++) {
    const unit = charCodeAt(text, index);
    out += fromCharCode(unit >= 0x41 && unit <= 0x5A ? unit + 32 : unit);
  }
  return out;
}
class TextDecoder {
  constructor(label = 'utf-8', options = undefined) {
    const name = asciiLowerTrimmed(StringConstructor(label));
    if (!arrayIncludes(UTF8_LABELS, name)) {
      throw new RangeErrorConstructor('TextDecoder: the encoding ' + jsonStringify(stringSlice(StringConstructor(label), 0, 64)) + ' is not supported in the sandbox; only UTF-8 is');
    }
    // The defaults as a null-prototype object: a getter the program put on Object.prototype must not fill them in.
    const given = options === undefined || options === null ? { __proto__: null } : options;
    weakMapSet(decoderStates, this, { __proto__: null, fatal: !!given.fatal, ignoreBOM: !!given.ignoreBOM });
  }
  get encoding() { decoderState(this); return 'utf-8'; }
  get fatal() { return decoderState(this).fatal; }
  get ignoreBOM() { return decoderState(this).ignoreBOM; }
  decode(input = undefined, options = undefined) {
    const state = decoderState(this);
    if (options !== undefined && options !== null && options.stream) {
      throw new TypeErrorConstructor('TextDecoder.decode: streaming ({ stream: true }) is not supported in the sandbox; decode the whole input at once');
    }
    const bytes = input === undefined ? new Uint8ArrayConstructor(0) : bytesOf(input);
    if (bytes === undefined) throw new TypeErrorConstructor('TextDecoder.decode: the input must be an ArrayBuffer, a typed array or a DataView');
    return utf8Decode(bytes, state.fatal, state.ignoreBOM);
  }
}
tagPrototype(TextDecoder, 'TextDecoder');
installGlobal('TextDecoder', TextDecoder);

// ---------------------------------------------------------------- URLSearchParams
const HEX = '0123456789ABCDEF';
/** URLSearchParams → { list: [name, value][], url: the URL whose query it mirrors, or undefined }. */
const paramsStates = new WeakMapConstructor();
function paramsState(params) {
  const state = weakMapGet(paramsStates, params);
  if (state === undefined) throw new TypeErrorConstructor('Illegal invocation: not a URLSearchParams');
  return state;
}
const hexValue = (unit) => unit >= 0x30 && unit <= 0x39 ? unit - 0x30 : unit >= 0x41 && unit <= 0x46 ? unit - 0x37 : unit >= 0x61 && unit <= 0x66 ? unit - 0x57 : -1;
/** A name or value of application/x-www-form-urlencoded text: '+' is a space, %XX a byte, the bytes UTF-8. */
function formDecode(text, start, end) {
  let plain = true;
  for (let index = start; index < end; index++) {
    const unit = charCodeAt(text, index);
    if (unit === 0x25 || unit === 0x2B || (unit >= 0xD800 && unit <= 0xDFFF)) { plain = false; break; }
  }
  if (plain) return stringSlice(text, start, end);
  const bytes = utf8Encode(stringSlice(text, start, end));
  const length = typedArrayLength(bytes);
  const decoded = new Uint8ArrayConstructor(length);
  let count = 0;
  for (let index = 0; index < length; index++) {
    const byte = bytes[index];
    if (byte === 0x2B) { decoded[count++] = 0x20; continue; }
    if (byte === 0x25 && index + 2 < length) {
      const high = hexValue(bytes[index + 1]), low = hexValue(bytes[index + 2]);
      if (high >= 0 && low >= 0) { decoded[count++] = high * 16 + low; index += 2; continue; }
    }
    decoded[count++] = byte;
  }
  return utf8Decode(new Uint8ArrayConstructor(typedArrayBuffer(decoded), 0, count), false, true);
}
function parseForm(text) {
  const list = [];
  let start = 0;
  while (start <= text.length) {
    let end = stringIndexOf(text, '&', start);
    if (end === -1) end = text.length;
    if (end > start) {
      let equals = stringIndexOf(text, '=', start);
      if (equals === -1 || equals > end) equals = end;
      append(list, [formDecode(text, start, equals), equals < end ? formDecode(text, equals + 1, end) : '']);
    }
    start = end + 1;
  }
  return list;
}
function formEncode(text) {
  const bytes = utf8Encode(text);
  const length = typedArrayLength(bytes);
  let out = '';
  for (let index = 0; index < length; index++) {
    const byte = bytes[index];
    if (byte === 0x20) out += '+';
    else if ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte === 0x2A || byte === 0x2D || byte === 0x2E || byte === 0x5F) out += fromCharCode(byte);
    else out += '%' + stringSlice(HEX, byte >> 4, (byte >> 4) + 1) + stringSlice(HEX, byte & 15, (byte & 15) + 1);
  }
  return out;
}
function serializeForm(list) {
  let out = '';
  for (let index = 0; index < list.length; index++) {
    if (index > 0) out += '&';
    out += formEncode(list[index][0]) + '=' + formEncode(list[index][1]);
  }
  return out;
}
function without(list, keep) {
  const kept = [];
  for (let index = 0; index < list.length; index++) if (keep(list[index])) append(kept, list[index]);
  return kept;
}
/** After a change of the list: the URL it belongs to takes the new query (WHATWG "update steps"). */
function updateParams(state) {
  if (state.url === undefined) return;
  const serialized = serializeForm(state.list);
  setUrlPart(state.url, 'search', serialized === '' ? '' : '?' + serialized, false);
}
function newParams(url, query) {
  const params = ObjectCreate(URLSearchParams.prototype);
  weakMapSet(paramsStates, params, { __proto__: null, list: parseForm(query), url });
  return params;
}

class URLSearchParams {
  constructor(init = undefined) {
    let list = [];
    if (init !== undefined && (typeof init === 'object' || typeof init === 'function') && init !== null) {
      const iterate = init[SymbolIterator];
      if (iterate !== undefined && iterate !== null) {
        if (typeof iterate !== 'function') throw new TypeErrorConstructor('URLSearchParams: the init object\'s Symbol.iterator is not a function');
        // The program's own iterables, read the way it made them iterable.
        for (const pair of init) {
          const items = [];
          if (typeof pair !== 'object' || pair === null) throw new TypeErrorConstructor('URLSearchParams: each item of the init sequence must be a [name, value] pair');
          for (const item of pair) append(items, toUsvString(item));
          if (items.length !== 2) throw new TypeErrorConstructor('URLSearchParams: each pair of the init sequence must have exactly two items, a name and a value');
          append(list, [items[0], items[1]]);
        }
      } else {
        const keys = reflectOwnKeys(init);
        for (let index = 0; index < keys.length; index++) {
          const key = keys[index];
          if (typeof key !== 'string') continue;
          const descriptor = getOwnPropertyDescriptor(init, key);
          if (descriptor !== undefined && descriptor.enumerable) append(list, [toUsvString(key), toUsvString(init[key])]);
        }
      }
    } else if (init !== undefined) {
      const text = toUsvString(init);
      list = parseForm(charCodeAt(text, 0) === 0x3F ? stringSlice(text, 1) : text);
    }
    weakMapSet(paramsStates, this, { __proto__: null, list, url: undefined });
  }
  get size() { return paramsState(this).list.length; }
  append(name, value) {
    requireArguments('URLSearchParams.append', arguments.length, 2);
    const state = paramsState(this);
    append(state.list, [toUsvString(name), toUsvString(value)]);
    updateParams(state);
  }
  delete(name, value = undefined) {
    requireArguments('URLSearchParams.delete', arguments.length, 1);
    const state = paramsState(this);
    const key = toUsvString(name), match = value === undefined ? undefined : toUsvString(value);
    state.list = without(state.list, (pair) => pair[0] !== key || (match !== undefined && pair[1] !== match));
    updateParams(state);
  }
  get(name) {
    requireArguments('URLSearchParams.get', arguments.length, 1);
    const list = paramsState(this).list, key = toUsvString(name);
    for (let index = 0; index < list.length; index++) if (list[index][0] === key) return list[index][1];
    return null;
  }
  getAll(name) {
    requireArguments('URLSearchParams.getAll', arguments.length, 1);
    const list = paramsState(this).list, key = toUsvString(name), values = [];
    for (let index = 0; index < list.length; index++) if (list[index][0] === key) append(values, list[index][1]);
    return values;
  }
  has(name, value = undefined) {
    requireArguments('URLSearchParams.has', arguments.length, 1);
    const list = paramsState(this).list, key = toUsvString(name), match = value === undefined ? undefined : toUsvString(value);
    for (let index = 0; index < list.length; index++) if (list[index][0] === key && (match === undefined || list[index][1] === match)) return true;
    return false;
  }
  set(name, value) {
    requireArguments('URLSearchParams.set', arguments.length, 2);
    const state = paramsState(this);
    const key = toUsvString(name), text = toUsvString(value);
    let found = false;
    state.list = without(state.list, (pair) => {
      if (pair[0] !== key) return true;
      if (found) return false;
      found = true;
      pair[1] = text;
      return true;
    });
    if (!found) append(state.list, [key, text]);
    updateParams(state);
  }
  sort() {
    const state = paramsState(this);
    // Stable (V8's sort is), by UTF-16 code units of the name, as the standard says.
    arraySort(state.list, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    updateParams(state);
  }
  forEach(callback, thisArg = undefined) {
    requireArguments('URLSearchParams.forEach', arguments.length, 1);
    if (typeof callback !== 'function') throw new TypeErrorConstructor('URLSearchParams.forEach takes a function');
    const state = paramsState(this);
    for (let index = 0; index < state.list.length; index++) reflectApply(callback, thisArg, [state.list[index][1], state.list[index][0], this]);
  }
  *entries() { const state = paramsState(this); for (let index = 0; index < state.list.length; index++) yield [state.list[index][0], state.list[index][1]]; }
  *keys() { const state = paramsState(this); for (let index = 0; index < state.list.length; index++) yield state.list[index][0]; }
  *values() { const state = paramsState(this); for (let index = 0; index < state.list.length; index++) yield state.list[index][1]; }
  toString() { return serializeForm(paramsState(this).list); }
}
defineProperty(URLSearchParams.prototype, SymbolIterator, { value: URLSearchParams.prototype.entries, writable: true, enumerable: false, configurable: true });
tagPrototype(URLSearchParams, 'URLSearchParams');
installGlobal('URLSearchParams', URLSearchParams);

// ---------------------------------------------------------------- URL (parsed by the host's WHATWG parser)
const URL_MAX_INPUT = ${URL_LIMITS.maxInputChars};
const URL_PARTS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
/** URL → { parts: the host's components (see URL_PARTS), params: its URLSearchParams }. */
const urlStates = new WeakMapConstructor();
function urlState(url) {
  const state = weakMapGet(urlStates, url);
  if (state === undefined) throw new TypeErrorConstructor('Illegal invocation: not a URL');
  return state;
}
function urlTooLong() {
  return new RangeErrorConstructor('URL: an input is longer than ' + URL_MAX_INPUT + ' characters, or the URL it makes longer than ' + ${URL_LIMITS.maxHrefChars} + ', the sandbox\'s limits');
}
/** A URL input as a USVString; its length is checked first, so a huge one is never scanned or sent. */
function urlInput(value) {
  const text = StringConstructor(value);
  if (text.length > URL_MAX_INPUT) throw urlTooLong();
  return toUsvString(text);
}
/** The host's components of a URL, or undefined when it is not valid. Throws past the size limits. */
function hostUrl(operation, a, b, c) {
  const reply = StringConstructor(urlHost(operation, a, b, c));
  if (reply === ${JSON.stringify(URL_TOO_LONG)}) throw urlTooLong();
  if (reply === ${JSON.stringify(URL_INVALID)}) return undefined;
  return jsonParse(reply);
}
function invalidUrl(input) {
  const error = new TypeErrorConstructor('Invalid URL: ' + jsonStringify(stringSlice(input, 0, 200)) + (input.length > 200 ? '…' : ''));
  defineProperty(error, 'code', { value: 'ERR_INVALID_URL', writable: true, enumerable: true, configurable: true });
  return error;
}
function parseUrl(url, base) {
  return hostUrl('parse', urlInput(url), base === undefined ? undefined : urlInput(base));
}
function newUrl(target, parts) {
  const state = { __proto__: null, parts, params: undefined };
  weakMapSet(urlStates, target, state);
  state.params = newParams(target, stringSlice(parts[9], 1));
  return target;
}
/** A setter: the host applies it to the current href (href itself throws on an invalid URL, the rest ignore what they cannot use). */
function setUrlPart(url, part, value, fromSetter) {
  const state = urlState(url);
  const text = urlInput(value);
  const parts = hostUrl('set', state.parts[0], part, text);
  if (parts === undefined) {
    if (part === 'href') throw invalidUrl(text);
    return;
  }
  const searchChanged = parts[9] !== state.parts[9];
  state.parts = parts;
  // A change made through the URL is seen by its searchParams (one made through them already is).
  if (fromSetter && searchChanged) paramsState(state.params).list = parseForm(stringSlice(parts[9], 1));
}

class URL {
  constructor(url, base = undefined) {
    requireArguments('URL', arguments.length, 1);
    const input = urlInput(url);
    const parts = parseUrl(input, base);
    if (parts === undefined) throw invalidUrl(input);
    newUrl(this, parts);
  }
  static canParse(url, base = undefined) {
    requireArguments('URL.canParse', arguments.length, 1);
    return parseUrl(url, base) !== undefined;
  }
  static parse(url, base = undefined) {
    requireArguments('URL.parse', arguments.length, 1);
    const parts = parseUrl(url, base);
    return parts === undefined ? null : newUrl(ObjectCreate(URL.prototype), parts);
  }
  get href() { return urlState(this).parts[0]; }
  set href(value) { setUrlPart(this, 'href', value, true); }
  get origin() { return urlState(this).parts[1]; }
  get protocol() { return urlState(this).parts[2]; }
  set protocol(value) { setUrlPart(this, 'protocol', value, true); }
  get username() { return urlState(this).parts[3]; }
  set username(value) { setUrlPart(this, 'username', value, true); }
  get password() { return urlState(this).parts[4]; }
  set password(value) { setUrlPart(this, 'password', value, true); }
  get host() { return urlState(this).parts[5]; }
  set host(value) { setUrlPart(this, 'host', value, true); }
  get hostname() { return urlState(this).parts[6]; }
  set hostname(value) { setUrlPart(this, 'hostname', value, true); }
  get port() { return urlState(this).parts[7]; }
  set port(value) { setUrlPart(this, 'port', value, true); }
  get pathname() { return urlState(this).parts[8]; }
  set pathname(value) { setUrlPart(this, 'pathname', value, true); }
  get search() { return urlState(this).parts[9]; }
  set search(value) { setUrlPart(this, 'search', value, true); }
  get searchParams() { return urlState(this).params; }
  get hash() { return urlState(this).parts[10]; }
  set hash(value) { setUrlPart(this, 'hash', value, true); }
  toString() { return urlState(this).parts[0]; }
  toJSON() { return urlState(this).parts[0]; }
}
tagPrototype(URL, 'URL');
installGlobal('URL', URL);

/** How console shows a URL or URLSearchParams (their state is not in own properties); undefined for anything else. */
function inspectWebGlobal(value, show) {
  const url = weakMapGet(urlStates, value);
  if (url !== undefined) return 'URL { href: ' + show(url.parts[0]) + ' }';
  const params = weakMapGet(paramsStates, value);
  if (params === undefined) return undefined;
  const items = [];
  for (let index = 0; index < params.list.length && index < 100; index++) append(items, show(params.list[index][0]) + ' => ' + show(params.list[index][1]));
  return 'URLSearchParams { ' + arrayJoin(items, ', ') + ' }';
}

// ---------------------------------------------------------------- structuredClone
function dataCloneError(what) {
  return new DOMException('structuredClone: ' + what + ' could not be cloned', 'DataCloneError');
}
function brand(check, value) {
  try { check(value); return true; } catch { return false; }
}
/**
 * HTML's structured clone, done in one walk with an explicit stack (a deep structure cannot overflow
 * the call stack): each object gets its copy when first met (so cycles and shared references come
 * out the same), and its contents are filled in when it leaves the stack.
 */
function structuredClone(value, options = undefined) {
  requireArguments('structuredClone', arguments.length, 1);
  if (options !== undefined && options !== null) {
    const transfer = options.transfer;
    if (transfer !== undefined && transfer !== null && transfer.length !== 0) {
      throw new DOMException('structuredClone: transferring (the transfer option) is not supported in the sandbox; clone without it', 'DataCloneError');
    }
  }
  const copies = new MapConstructor();
  // Pairs of (source, copy) still to fill in; \`top\` is its height. The array never shrinks, so a slot
  // below its length is written as an own element, never through a setter on Array.prototype.
  const work = [];
  let top = 0;
  const push = (item) => {
    if (top < work.length) work[top] = item;
    else append(work, item);
    top++;
  };
  const copyOf = (item) => {
    if (typeof item === 'symbol') throw dataCloneError(safe(() => symbolToString(item), 'a symbol'));
    if (typeof item === 'function') throw dataCloneError(safe(() => '[Function: ' + (item.name || 'anonymous') + ']', 'a function'));
    if (typeof item !== 'object' || item === null) return item;
    const known = mapGet(copies, item);
    if (known !== undefined) return known;
    const copy = shallowCopy(item, copies);
    mapSet(copies, item, copy);
    push(item);
    push(copy);
    return copy;
  };
  const root = copyOf(value);
  while (top > 0) {
    const copy = work[top - 1], source = work[top - 2];
    top -= 2;
    fillCopy(source, copy, copyOf);
  }
  return root;
}
function shallowCopy(source, copies) {
  if (isArray(source)) return new ArrayConstructor(source.length);
  // The common case without the brand checks below (each one that fails throws, which costs a stack
  // capture): an object whose prototype is Object.prototype or null is copied as a plain object.
  const prototype = getPrototypeOf(source);
  if (prototype === ObjectPrototype || prototype === null) return {};
  if (isDate(source)) return new DateConstructor(dateGetTime(source));
  if (source !== RegExpPrototype && brand(regExpSource, source)) return new RegExpConstructor(regExpSource(source), regExpFlags(source));
  if (isMap(source)) return new MapConstructor();
  if (isSet(source)) return new SetConstructor();
  const tag = typedArrayTag(source);
  if (tag !== undefined) {
    const buffer = typedArrayBuffer(source);
    let bufferCopy = mapGet(copies, buffer);
    if (bufferCopy === undefined) { bufferCopy = copyArrayBuffer(buffer); mapSet(copies, buffer, bufferCopy); }
    return new TYPED_ARRAYS[tag](bufferCopy, typedArrayByteOffset(source), typedArrayLength(source));
  }
  if (brand(arrayBufferByteLength, source)) return copyArrayBuffer(source);
  if (brand(dataViewBuffer, source)) {
    const buffer = dataViewBuffer(source);
    let bufferCopy = mapGet(copies, buffer);
    if (bufferCopy === undefined) { bufferCopy = copyArrayBuffer(buffer); mapSet(copies, buffer, bufferCopy); }
    return new DataViewConstructor(bufferCopy, dataViewByteOffset(source), dataViewByteLength(source));
  }
  if (brand(booleanValueOf, source)) return new BooleanConstructor(booleanValueOf(source));
  if (brand(numberValueOf, source)) return new NumberConstructor(numberValueOf(source));
  if (brand(stringValueOf, source)) return new StringConstructor(stringValueOf(source));
  if (brand(bigIntValueOf, source)) return ObjectConstructor(bigIntValueOf(source));
  if (brand(symbolValueOf, source)) throw dataCloneError('a Symbol object');
  if (source instanceof ErrorConstructor) return copyError(source);
  if (brand((item) => weakMapHas(item, source), source) || brand((item) => weakSetHas(item, source), source) || brand(weakRefDeref, source) || source instanceof PromiseConstructor) {
    throw dataCloneError(safe(() => '#<' + getPrototypeOf(source).constructor.name + '>', 'an object of this kind'));
  }
  return {};
}
function copyArrayBuffer(buffer) {
  const copy = new ArrayBufferConstructor(arrayBufferByteLength(buffer));
  typedArraySet(new Uint8ArrayConstructor(copy), new Uint8ArrayConstructor(buffer));
  return copy;
}
function copyError(source) {
  const name = safe(() => StringConstructor(source.name), 'Error');
  const Constructor = ERROR_CONSTRUCTORS[name] === undefined ? ErrorConstructor : ERROR_CONSTRUCTORS[name];
  const message = getOwnPropertyDescriptor(source, 'message');
  const copy = message !== undefined && hasOwn(message, 'value') ? new Constructor(StringConstructor(message.value)) : new Constructor();
  const stack = safe(() => source.stack, undefined);
  if (typeof stack === 'string') defineProperty(copy, 'stack', { value: stack, writable: true, enumerable: false, configurable: true });
  return copy;
}
// What to fill in is told by the copy, made by shallowCopy, whose prototype is an intrinsic: no brand
// check of the source (a throw each) is needed again.
function fillCopy(source, copy, copyOf) {
  const kind = getPrototypeOf(copy);
  if (kind === MapPrototype) {
    const iterator = mapEntries(source);
    for (let step = iteratorNext(iterator); !step.done; step = iteratorNext(iterator)) mapSet(copy, copyOf(step.value[0]), copyOf(step.value[1]));
    return;
  }
  if (kind === SetPrototype) {
    const iterator = setValues(source);
    for (let step = setIteratorNext(iterator); !step.done; step = setIteratorNext(iterator)) setAdd(copy, copyOf(step.value));
    return;
  }
  // Errors, dates, regular expressions, buffers and views keep only what shallowCopy gave them.
  if (kind !== ArrayPrototype && kind !== ObjectPrototype) return;
  const keys = objectKeys(source);
  for (let index = 0; index < keys.length; index++) defineData(copy, keys[index], copyOf(source[keys[index]]));
}
installGlobal('structuredClone', structuredClone);
`;
