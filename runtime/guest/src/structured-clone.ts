// ---------------------------------------------------------------- structuredClone
function dataCloneError(what: string): DOMException {
  return new DOMException('structuredClone: ' + what + ' could not be cloned', 'DataCloneError');
}
function brand(check: (value: never) => unknown, value: unknown): boolean {
  try {
    check(value as never);
    return true;
  } catch {
    return false;
  }
}
/**
 * HTML's structured clone, done in one walk with an explicit stack (a deep structure cannot overflow
 * the call stack): each object gets its copy when first met (so cycles and shared references come
 * out the same), and its contents are filled in when it leaves the stack.
 */
function structuredClone(value: unknown, options: { transfer?: { length: number } | null } | null | undefined = undefined): unknown {
  requireArguments('structuredClone', arguments.length, 1);
  if (options !== undefined && options !== null) {
    const transfer = options.transfer;
    if (transfer !== undefined && transfer !== null && transfer.length !== 0) {
      throw new DOMException(
        'structuredClone: transferring (the transfer option) is not supported in the sandbox; clone without it',
        'DataCloneError',
      );
    }
  }
  const copies = new MapConstructor<object, object>();
  // Pairs of (source, copy) still to fill in; `top` is its height. The array never shrinks, so a slot
  // below its length is written as an own element, never through a setter on Array.prototype.
  const work: object[] = [];
  let top = 0;
  const push = (item: object): void => {
    if (top < work.length) work[top] = item;
    else append(work, item);
    top++;
  };
  const copyOf = (item: unknown): unknown => {
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
    const copy = work[top - 1],
      source = work[top - 2];
    top -= 2;
    fillCopy(source, copy, copyOf);
  }
  return root;
}
function shallowCopy(source: object, copies: Map<object, object>): object {
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
    if (bufferCopy === undefined) {
      bufferCopy = copyArrayBuffer(buffer);
      mapSet(copies, buffer, bufferCopy);
    }
    return new TYPED_ARRAYS[tag]!(bufferCopy, typedArrayByteOffset(source), typedArrayLength(source));
  }
  if (brand(arrayBufferByteLength, source)) return copyArrayBuffer(source as ArrayBuffer);
  if (brand(dataViewBuffer, source)) {
    const buffer = dataViewBuffer(source);
    let bufferCopy = mapGet(copies, buffer);
    if (bufferCopy === undefined) {
      bufferCopy = copyArrayBuffer(buffer);
      mapSet(copies, buffer, bufferCopy);
    }
    return new DataViewConstructor(bufferCopy, dataViewByteOffset(source), dataViewByteLength(source));
  }
  if (brand(booleanValueOf, source)) return new BooleanConstructor(booleanValueOf(source));
  if (brand(numberValueOf, source)) return new NumberConstructor(numberValueOf(source));
  if (brand(stringValueOf, source)) return new StringConstructor(stringValueOf(source));
  if (brand(bigIntValueOf, source)) return ObjectConstructor(bigIntValueOf(source));
  if (brand(symbolValueOf, source)) throw dataCloneError('a Symbol object');
  if (source instanceof ErrorConstructor) return copyError(source);
  if (
    brand((item) => weakMapHas(item, source), source) ||
    brand((item) => weakSetHas(item, source), source) ||
    brand(weakRefDeref, source) ||
    source instanceof PromiseConstructor
  ) {
    throw dataCloneError(safe(() => '#<' + getPrototypeOf(source).constructor.name + '>', 'an object of this kind'));
  }
  return {};
}
function copyArrayBuffer(buffer: ArrayBuffer): ArrayBuffer {
  const copy = new ArrayBufferConstructor(arrayBufferByteLength(buffer));
  typedArraySet(new Uint8ArrayConstructor(copy), new Uint8ArrayConstructor(buffer));
  return copy;
}
function copyError(source: Error): Error {
  const name = safe(() => StringConstructor(source.name), 'Error');
  const Constructor = (ERROR_CONSTRUCTORS[name] === undefined ? ErrorConstructor : ERROR_CONSTRUCTORS[name]) as ErrorConstructor;
  const message = getOwnPropertyDescriptor(source, 'message');
  const copy = message !== undefined && hasOwn(message, 'value') ? new Constructor(StringConstructor(message.value)) : new Constructor();
  const stack = safe(() => source.stack, undefined);
  if (typeof stack === 'string') defineProperty(copy, 'stack', { value: stack, writable: true, enumerable: false, configurable: true });
  return copy;
}
// What to fill in is told by the copy, made by shallowCopy, whose prototype is an intrinsic: no brand
// check of the source (a throw each) is needed again.
function fillCopy(source: object, copy: object, copyOf: (item: unknown) => unknown): void {
  const kind = getPrototypeOf(copy);
  if (kind === MapPrototype) {
    const iterator = mapEntries(source);
    for (let step = iteratorNext(iterator); !step.done; step = iteratorNext(iterator))
      mapSet(copy, copyOf(step.value[0]), copyOf(step.value[1]));
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
  for (let index = 0; index < keys.length; index++) defineData(copy, keys[index], copyOf((source as Record<string, unknown>)[keys[index]]));
}
installGlobal('structuredClone', structuredClone);
