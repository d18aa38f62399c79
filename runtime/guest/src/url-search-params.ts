// ---------------------------------------------------------------- URLSearchParams
const HEX = '0123456789ABCDEF';
/** URLSearchParams → { list: [name, value][], url: the URL whose query it mirrors, or undefined }. */
type FormList = [name: string, value: string][];
interface ParamsState {
  list: FormList;
  url: URL | undefined;
}
const paramsStates = new WeakMapConstructor<object, ParamsState>();
function paramsState(params: object): ParamsState {
  const state = weakMapGet(paramsStates, params) as ParamsState | undefined;
  if (state === undefined) throw new TypeErrorConstructor('Illegal invocation: not a URLSearchParams');
  return state;
}
const hexValue = (unit: number): number =>
  unit >= 0x30 && unit <= 0x39 ? unit - 0x30 : unit >= 0x41 && unit <= 0x46 ? unit - 0x37 : unit >= 0x61 && unit <= 0x66 ? unit - 0x57 : -1;
/** A name or value of application/x-www-form-urlencoded text: '+' is a space, %XX a byte, the bytes UTF-8. */
function formDecode(text: string, start: number, end: number): string {
  let plain = true;
  for (let index = start; index < end; index++) {
    const unit = charCodeAt(text, index);
    if (unit === 0x25 || unit === 0x2b || (unit >= 0xd800 && unit <= 0xdfff)) {
      plain = false;
      break;
    }
  }
  if (plain) return stringSlice(text, start, end);
  const bytes = utf8Encode(stringSlice(text, start, end));
  const length = typedArrayLength(bytes);
  const decoded = new Uint8ArrayConstructor(length);
  let count = 0;
  for (let index = 0; index < length; index++) {
    const byte = bytes[index];
    if (byte === 0x2b) {
      decoded[count++] = 0x20;
      continue;
    }
    if (byte === 0x25 && index + 2 < length) {
      const high = hexValue(bytes[index + 1]),
        low = hexValue(bytes[index + 2]);
      if (high >= 0 && low >= 0) {
        decoded[count++] = high * 16 + low;
        index += 2;
        continue;
      }
    }
    decoded[count++] = byte;
  }
  return utf8Decode(new Uint8ArrayConstructor(typedArrayBuffer(decoded), 0, count), false, true);
}
function parseForm(text: string): FormList {
  const list: FormList = [];
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
function formEncode(text: string): string {
  const bytes = utf8Encode(text);
  const length = typedArrayLength(bytes);
  let out = '';
  for (let index = 0; index < length; index++) {
    const byte = bytes[index];
    if (byte === 0x20) out += '+';
    else if (
      (byte >= 0x30 && byte <= 0x39) ||
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2a ||
      byte === 0x2d ||
      byte === 0x2e ||
      byte === 0x5f
    )
      out += fromCharCode(byte);
    else out += '%' + stringSlice(HEX, byte >> 4, (byte >> 4) + 1) + stringSlice(HEX, byte & 15, (byte & 15) + 1);
  }
  return out;
}
function serializeForm(list: FormList): string {
  let out = '';
  for (let index = 0; index < list.length; index++) {
    if (index > 0) out += '&';
    out += formEncode(list[index][0]) + '=' + formEncode(list[index][1]);
  }
  return out;
}
function without(list: FormList, keep: (pair: [string, string]) => boolean): FormList {
  const kept: FormList = [];
  for (let index = 0; index < list.length; index++) if (keep(list[index])) append(kept, list[index]);
  return kept;
}
/** After a change of the list: the URL it belongs to takes the new query (WHATWG "update steps"). */
function updateParams(state: ParamsState): void {
  if (state.url === undefined) return;
  const serialized = serializeForm(state.list);
  setUrlPart(state.url, 'search', serialized === '' ? '' : '?' + serialized, false);
}
function newParams(url: URL, query: string): URLSearchParams {
  const params = ObjectCreate(URLSearchParams.prototype) as URLSearchParams;
  weakMapSet(paramsStates, params, { __proto__: null, list: parseForm(query), url } as ParamsState);
  return params;
}

class URLSearchParams {
  constructor(init: unknown = undefined) {
    let list: FormList = [];
    if (init !== undefined && (typeof init === 'object' || typeof init === 'function') && init !== null) {
      const iterate: unknown = (init as { [SymbolIterator]?: unknown })[SymbolIterator];
      if (iterate !== undefined && iterate !== null) {
        if (typeof iterate !== 'function')
          throw new TypeErrorConstructor("URLSearchParams: the init object's Symbol.iterator is not a function");
        // The program's own iterables, read the way it made them iterable.
        for (const pair of init as Iterable<unknown>) {
          const items: string[] = [];
          if (typeof pair !== 'object' || pair === null)
            throw new TypeErrorConstructor('URLSearchParams: each item of the init sequence must be a [name, value] pair');
          for (const item of pair as Iterable<unknown>) append(items, toUsvString(item));
          if (items.length !== 2)
            throw new TypeErrorConstructor(
              'URLSearchParams: each pair of the init sequence must have exactly two items, a name and a value',
            );
          append(list, [items[0], items[1]]);
        }
      } else {
        const keys = reflectOwnKeys(init);
        for (let index = 0; index < keys.length; index++) {
          const key = keys[index];
          if (typeof key !== 'string') continue;
          const descriptor = getOwnPropertyDescriptor(init, key);
          if (descriptor !== undefined && descriptor.enumerable)
            append(list, [toUsvString(key), toUsvString((init as Record<string, unknown>)[key])]);
        }
      }
    } else if (init !== undefined) {
      const text = toUsvString(init);
      list = parseForm(charCodeAt(text, 0) === 0x3f ? stringSlice(text, 1) : text);
    }
    weakMapSet(paramsStates, this, { __proto__: null, list, url: undefined } as ParamsState);
  }
  get size(): number {
    return paramsState(this).list.length;
  }
  append(name: unknown, value: unknown): void {
    requireArguments('URLSearchParams.append', arguments.length, 2);
    const state = paramsState(this);
    append(state.list, [toUsvString(name), toUsvString(value)]);
    updateParams(state);
  }
  delete(name: unknown, value: unknown = undefined): void {
    requireArguments('URLSearchParams.delete', arguments.length, 1);
    const state = paramsState(this);
    const key = toUsvString(name),
      match = value === undefined ? undefined : toUsvString(value);
    state.list = without(state.list, (pair) => pair[0] !== key || (match !== undefined && pair[1] !== match));
    updateParams(state);
  }
  get(name: unknown): string | null {
    requireArguments('URLSearchParams.get', arguments.length, 1);
    const list = paramsState(this).list,
      key = toUsvString(name);
    for (let index = 0; index < list.length; index++) if (list[index][0] === key) return list[index][1];
    return null;
  }
  getAll(name: unknown): string[] {
    requireArguments('URLSearchParams.getAll', arguments.length, 1);
    const list = paramsState(this).list,
      key = toUsvString(name),
      values: string[] = [];
    for (let index = 0; index < list.length; index++) if (list[index][0] === key) append(values, list[index][1]);
    return values;
  }
  has(name: unknown, value: unknown = undefined): boolean {
    requireArguments('URLSearchParams.has', arguments.length, 1);
    const list = paramsState(this).list,
      key = toUsvString(name),
      match = value === undefined ? undefined : toUsvString(value);
    for (let index = 0; index < list.length; index++)
      if (list[index][0] === key && (match === undefined || list[index][1] === match)) return true;
    return false;
  }
  set(name: unknown, value: unknown): void {
    requireArguments('URLSearchParams.set', arguments.length, 2);
    const state = paramsState(this);
    const key = toUsvString(name),
      text = toUsvString(value);
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
  sort(): void {
    const state = paramsState(this);
    // Stable (V8's sort is), by UTF-16 code units of the name, as the standard says.
    arraySort(state.list, (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    updateParams(state);
  }
  forEach(callback: unknown, thisArg: unknown = undefined): void {
    requireArguments('URLSearchParams.forEach', arguments.length, 1);
    if (typeof callback !== 'function') throw new TypeErrorConstructor('URLSearchParams.forEach takes a function');
    const state = paramsState(this);
    for (let index = 0; index < state.list.length; index++)
      reflectApply(callback as (...args: unknown[]) => unknown, thisArg, [state.list[index][1], state.list[index][0], this]);
  }
  *entries(): Generator<[string, string]> {
    const state = paramsState(this);
    for (let index = 0; index < state.list.length; index++) yield [state.list[index][0], state.list[index][1]];
  }
  *keys(): Generator<string> {
    const state = paramsState(this);
    for (let index = 0; index < state.list.length; index++) yield state.list[index][0];
  }
  *values(): Generator<string> {
    const state = paramsState(this);
    for (let index = 0; index < state.list.length; index++) yield state.list[index][1];
  }
  toString(): string {
    return serializeForm(paramsState(this).list);
  }
}
defineProperty(URLSearchParams.prototype, SymbolIterator, {
  value: URLSearchParams.prototype.entries,
  writable: true,
  enumerable: false,
  configurable: true,
});
tagPrototype(URLSearchParams, 'URLSearchParams');
installGlobal('URLSearchParams', URLSearchParams);
