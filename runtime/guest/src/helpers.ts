// Not Array.prototype.push: it would run a setter the program put on Array.prototype[n].
function append<T>(array: T[], item: T): void {
  defineProperty(array, array.length, { value: item, writable: true, enumerable: true, configurable: true });
}

function copyWith<T>(items: readonly T[], item: T): T[] {
  const copy: T[] = [];
  for (let index = 0; index < items.length; index++)
    defineProperty(copy, index, { value: items[index], writable: true, enumerable: true, configurable: true });
  defineProperty(copy, items.length, { value: item, writable: true, enumerable: true, configurable: true });
  return copy;
}

function own(object: unknown, key: string): unknown {
  return typeof object === 'object' && object !== null && hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}

function safe<T, F>(read: () => T, fallback: F): T | F {
  try {
    return read();
  } catch {
    return fallback;
  }
}

// ---------------------------------------------------------------- helpers
function installGlobal(name: string, value: unknown): void {
  defineProperty(GLOBAL_OBJECT, name, { value, writable: true, enumerable: false, configurable: true });
}

/**
 * Installs the Web globals of the files the generator evaluates on first use (see runtime/guest/README.md,
 * "Evaluated on first use"): each name is an accessor until a program reads one of them; then the host's
 * `firstUseSource()` (the files' code as a function of the names it uses) is compiled, called with
 * `captured` (those names' values, taken when the bootstrap ran, before any program) and a collector in
 * place of `installGlobal`, and every name that still holds its accessor becomes the data property
 * `installGlobal` would have made.
 * Until then each accessor behaves as that writable data property would: a program's assignment,
 * redefinition or deletion is kept (an assignment through an object that inherits from the global object
 * makes a property of that object). An evaluation that fails (a program at its stack or memory limit)
 * changes nothing: the next read tries again. A name that cannot become data (the program froze or
 * sealed the global object) keeps its accessor, which answers with the value.
 */
function installLazyGlobals(names: readonly string[], captured: readonly unknown[]): void {
  let values: Map<string, unknown> | undefined;
  let installed = false;
  const getters = new MapConstructor<string, () => unknown>();
  // What a program assigned to a name whose accessor could not become data (a sealed global object).
  const assigned = new MapConstructor<string, unknown>();
  const load = (): Map<string, unknown> => {
    if (values === undefined) {
      const loaded = new MapConstructor<string, unknown>();
      const source: unknown = firstUseSource();
      if (typeof source !== 'string') throw new TypeErrorConstructor('the sandbox could not load its Web globals');
      const factory = reflectApply(new FunctionConstructor("'use strict'; return " + source), undefined, []) as (
        ...args: unknown[]
      ) => void;
      // The generator writes the names (in the source) and their values (here) together; a source of another
      // build would take them in another order.
      if (typeof factory !== 'function' || factory.length !== captured.length + 1)
        throw new TypeErrorConstructor('the sandbox could not load its Web globals');
      reflectApply(
        factory,
        undefined,
        copyWith(captured, (name: string, value: unknown) => void mapSet(loaded, name, value)),
      );
      values = loaded;
    }
    if (!installed) {
      for (let index = 0; index < names.length; index++) {
        const name = names[index]!;
        const descriptor = getOwnPropertyDescriptor(GLOBAL_OBJECT, name);
        if (descriptor === undefined || !hasOwn(descriptor, 'get') || descriptor.get !== mapGet(getters, name)) continue;
        if (descriptor.configurable === true) installGlobal(name, mapGet(values, name));
      }
      installed = true;
    }
    return values;
  };
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const get = (): unknown => (mapHas(assigned, name) ? mapGet(assigned, name) : mapGet(load(), name));
    mapSet(getters, name, get);
    defineProperty(GLOBAL_OBJECT, name, {
      get,
      set: function (this: unknown, value: unknown): void {
        if (this !== GLOBAL_OBJECT) {
          // As for an inherited writable data property: the assignment makes a property of the receiver.
          defineProperty(this as object, name, { value, writable: true, enumerable: true, configurable: true });
          return;
        }
        const descriptor = getOwnPropertyDescriptor(GLOBAL_OBJECT, name);
        if (descriptor !== undefined && descriptor.configurable === true) installGlobal(name, value);
        else mapSet(assigned, name, value);
      },
      enumerable: false,
      configurable: true,
    });
  }
}

/** How console shows the values of Web globals whose state is not in own properties (URL, URLSearchParams), once they are loaded. */
let webInspector: ((value: object, show: (item: unknown) => string) => string | undefined) | undefined;
function setWebInspector(inspect: NonNullable<typeof webInspector>): void {
  webInspector = inspect;
}
function tagPrototype(constructor: { prototype: object }, tag: string): void {
  defineProperty(constructor.prototype, SymbolToStringTag, { value: tag, writable: false, enumerable: false, configurable: true });
}
function defineData(target: object, key: PropertyKey, value: unknown): void {
  defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
function requireArguments(name: string, given: number, needed: number): void {
  if (given < needed)
    throw new TypeErrorConstructor(
      name + ': ' + needed + ' argument' + (needed === 1 ? '' : 's') + ' required, but only ' + given + ' present',
    );
}
/** WebIDL USVString: a string with each lone surrogate replaced by U+FFFD. */
function toUsvString(value: unknown): string {
  const text = StringConstructor(value);
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (unit >= 0xd800 && unit <= 0xdfff) return wellFormed(text);
  }
  return text;
}
function wellFormed(text: string): string {
  const units = new Uint16ArrayConstructor(text.length);
  for (let index = 0; index < text.length; index++) {
    const unit = charCodeAt(text, index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length && (charCodeAt(text, index + 1) & 0xfc00) === 0xdc00) {
      units[index] = unit;
      units[index + 1] = charCodeAt(text, index + 1);
      index++;
    } else {
      units[index] = unit >= 0xd800 && unit <= 0xdfff ? 0xfffd : unit;
    }
  }
  return unitsToString(units, text.length);
}
const STRING_CHUNK = 8192;
/**
 * The string of the first `count` UTF-16 code units in `units` (a Uint16Array). fromCharCode takes
 * them as arguments, a chunk at a time; each chunk is a view with an own `length`, so the arguments
 * list is read without the TypedArray.prototype getters a program may have replaced.
 */
function unitsToString(units: Uint16Array, count: number): string {
  const buffer = typedArrayBuffer(units),
    offset = typedArrayByteOffset(units);
  let text = '';
  for (let start = 0; start < count; start += STRING_CHUNK) {
    const length = count - start < STRING_CHUNK ? count - start : STRING_CHUNK;
    const view = new Uint16ArrayConstructor(buffer, offset + start * 2, length);
    defineProperty(view, 'length', { value: length });
    text += reflectApply(fromCharCode, undefined, view as unknown as number[]);
  }
  return text;
}
/** A Uint8Array over the bytes of an ArrayBuffer or a view, or undefined when `source` is neither. */
function bytesOf(source: unknown): Uint8Array | undefined {
  if (typedArrayTag(source) !== undefined)
    return new Uint8ArrayConstructor(typedArrayBuffer(source), typedArrayByteOffset(source), typedArrayByteLength(source));
  try {
    return new Uint8ArrayConstructor(dataViewBuffer(source), dataViewByteOffset(source), dataViewByteLength(source));
  } catch {
    // not a DataView
  }
  try {
    arrayBufferByteLength(source);
    return new Uint8ArrayConstructor(source as ArrayBuffer);
  } catch {
    return undefined;
  }
}
