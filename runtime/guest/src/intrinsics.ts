// Intrinsics, captured before any program code runs. `uncurry(f)(self, ...args)` = f.call(self, ...args)
// through the Function.prototype.call of this moment.
type Uncurried<F> = F extends (this: infer This, ...args: infer Args) => infer Result ? (self: This, ...args: Args) => Result : never;
const uncurry = Function.prototype.bind.bind(Function.prototype.call) as <F extends (...args: never[]) => unknown>(
  method: F,
) => Uncurried<F>;
const jsonParse = JSON.parse,
  jsonStringify = JSON.stringify;
const ObjectFreeze = Object.freeze,
  definePropertyIntrinsic = Object.defineProperty,
  objectKeys = Object.keys;
const getPrototypeOf = Object.getPrototypeOf,
  isArray = Array.isArray;
const MapConstructor = Map,
  WeakMapConstructor = WeakMap,
  PromiseConstructor = Promise;
const ErrorConstructor = Error,
  TypeErrorConstructor = TypeError,
  RangeErrorConstructor = RangeError;
const StringConstructor = String;
const mapHas = uncurry(Map.prototype.has);
const mapGet = uncurry(Map.prototype.get),
  mapSet = uncurry(Map.prototype.set),
  mapDelete = uncurry(Map.prototype.delete);
const mapEntries = uncurry(Map.prototype.entries),
  setValues = uncurry(Set.prototype.values);
const weakMapGet = uncurry(WeakMap.prototype.get),
  weakMapSet = uncurry(WeakMap.prototype.set);
const arrayJoin = uncurry(Array.prototype.join),
  arrayIncludes = uncurry(Array.prototype.includes);
const hasOwn = uncurry(Object.prototype.hasOwnProperty);
const DESCRIPTOR_FIELDS = ['value', 'writable', 'enumerable', 'configurable', 'get', 'set'] as const;
/**
 * Object.defineProperty with only the descriptor's own fields: the guest's descriptors are object literals,
 * and defineProperty reads each field through the prototype chain, so a program that put `get`, `set` or
 * `value` on Object.prototype would change every property the guest defines (or make each definition throw).
 */
function defineProperty<T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor): T {
  const own = { __proto__: null } as unknown as Record<string, unknown>;
  for (let index = 0; index < DESCRIPTOR_FIELDS.length; index++) {
    const field = DESCRIPTOR_FIELDS[index]!;
    if (hasOwn(descriptor, field)) own[field] = (descriptor as Record<string, unknown>)[field];
  }
  return definePropertyIntrinsic(target, key, own as PropertyDescriptor);
}
/** The global object as the bootstrap found it (a program may rebind the `globalThis` property). */
const GLOBAL_OBJECT = globalThis;
const iteratorNext = uncurry((getPrototypeOf(new Map().entries()) as IterableIterator<[unknown, unknown]>).next),
  setIteratorNext = uncurry((getPrototypeOf(new Set().values()) as IterableIterator<unknown>).next);
const stringSlice = uncurry(String.prototype.slice),
  stringIndexOf = uncurry(String.prototype.indexOf),
  regExpTest = uncurry(RegExp.prototype.test);
const functionToString = uncurry(Function.prototype.toString),
  symbolToString = uncurry(Symbol.prototype.toString);
const dateToISOString = uncurry(Date.prototype.toISOString),
  regExpToString = uncurry(RegExp.prototype.toString);
const mapSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, 'size')!.get!);
const setSize = uncurry(Object.getOwnPropertyDescriptor(Set.prototype, 'size')!.get!);
const isMap = (value: unknown): value is Map<unknown, unknown> => {
  try {
    mapSize(value);
    return true;
  } catch {
    return false;
  }
};
const isSet = (value: unknown): value is Set<unknown> => {
  try {
    setSize(value);
    return true;
  } catch {
    return false;
  }
};
const isDate = (value: unknown): value is Date => {
  try {
    dateToISOString(value);
    return true;
  } catch (error) {
    return error instanceof RangeErrorConstructor;
  }
};
const isRegExp = (value: unknown): value is RegExp => {
  try {
    regExpTest(value, '');
    return true;
  } catch {
    return false;
  }
};
const CLASS_SOURCE = /^class\b/,
  IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// ---------------------------------------------------------------- captured intrinsics
const reflectApply = Reflect.apply,
  reflectOwnKeys = Reflect.ownKeys,
  getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const FunctionConstructor = Function;
const NumberConstructor = Number,
  BooleanConstructor = Boolean,
  ObjectConstructor = Object,
  ObjectCreate = Object.create,
  ObjectPrototype = Object.prototype;
const fromCharCode = String.fromCharCode;
const mathFloor = Math.floor,
  SymbolIterator = Symbol.iterator,
  SymbolToStringTag = Symbol.toStringTag;
const ArrayConstructor = Array,
  DateConstructor = Date,
  RegExpConstructor = RegExp,
  SetConstructor = Set;
const ArrayBufferConstructor = ArrayBuffer,
  DataViewConstructor = DataView,
  Uint8ArrayConstructor = Uint8Array,
  Uint16ArrayConstructor = Uint16Array;
const charCodeAt = uncurry(String.prototype.charCodeAt),
  arraySort = uncurry(Array.prototype.sort);
const getterOf = (object: object, key: PropertyKey) => uncurry(getOwnPropertyDescriptor(object, key)!.get!);
const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as Uint8Array;
const typedArrayTag = getterOf(TypedArrayPrototype, SymbolToStringTag),
  typedArrayBuffer = getterOf(TypedArrayPrototype, 'buffer');
const typedArrayByteOffset = getterOf(TypedArrayPrototype, 'byteOffset'),
  typedArrayByteLength = getterOf(TypedArrayPrototype, 'byteLength');
const typedArrayLength = getterOf(TypedArrayPrototype, 'length'),
  typedArraySet = uncurry(TypedArrayPrototype.set);
const arrayBufferByteLength = getterOf(ArrayBuffer.prototype, 'byteLength');
const dataViewBuffer = getterOf(DataView.prototype, 'buffer'),
  dataViewByteOffset = getterOf(DataView.prototype, 'byteOffset'),
  dataViewByteLength = getterOf(DataView.prototype, 'byteLength');
const dateGetTime = uncurry(Date.prototype.getTime),
  regExpSource = getterOf(RegExp.prototype, 'source'),
  regExpFlags = getterOf(RegExp.prototype, 'flags');
const setAdd = uncurry(Set.prototype.add),
  weakMapHas = uncurry(WeakMap.prototype.has),
  weakSetHas = uncurry(WeakSet.prototype.has),
  weakRefDeref = uncurry(WeakRef.prototype.deref);
const booleanValueOf = uncurry(Boolean.prototype.valueOf),
  numberValueOf = uncurry(Number.prototype.valueOf),
  stringValueOf = uncurry(String.prototype.valueOf);
const bigIntValueOf = uncurry(BigInt.prototype.valueOf),
  symbolValueOf = uncurry(Symbol.prototype.valueOf);
const RegExpPrototype = RegExp.prototype,
  MapPrototype = Map.prototype,
  SetPrototype = Set.prototype,
  ArrayPrototype = Array.prototype;
const TYPED_ARRAYS: Record<string, (new (buffer: ArrayBuffer, byteOffset: number, length: number) => object) | null | undefined> = {
  __proto__: null,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};
const ERROR_CONSTRUCTORS: Record<string, ErrorConstructor | null | undefined> = {
  __proto__: null,
  Error,
  EvalError,
  RangeError,
  ReferenceError,
  SyntaxError,
  TypeError,
  URIError,
};
