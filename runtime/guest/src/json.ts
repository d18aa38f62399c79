const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;
/**
 * Whether `object` has an own array-index key (asked before every JSON.stringify on QuickJS, so it must
 * be cheap: listing Array.prototype's ~40 keys and testing each cost ~110 µs a call there). An array's
 * index keys are all below its length, so a short array is asked for each index it can have; own keys
 * list array indices first, in ascending order, so otherwise the first key decides.
 */
function hasIndexKey(object: object): boolean {
  if (isArray(object) && (object as unknown[]).length <= 8) {
    for (let index = 0; index < (object as unknown[]).length; index++) if (hasOwn(object, StringConstructor(index))) return true;
    return false;
  }
  const keys = reflectOwnKeys(object);
  const first = keys.length === 0 ? undefined : keys[0];
  return typeof first === 'string' && regExpTest(INDEX_KEY, first);
}
/** JSON.stringify(value), or with `refuse` a function anywhere in it throws NOT_JSON (see serializeResult). */
function stringifyJson(value: unknown, refuse: boolean): string | undefined {
  if (!stringifyRunsIndexSetters || !(hasIndexKey(ArrayPrototype) || hasIndexKey(ObjectPrototype)))
    return refuse ? serializeResult(value) : jsonStringify(value);
  return stringifyWithoutSetters(value, refuse);
}
/** JSON.stringify's algorithm (no replacer, no indent), keeping its own state in own properties only. */
function stringifyWithoutSetters(value: unknown, refuse: boolean): string | undefined {
  const ancestors: unknown[] = [];
  const walk = (_holder: unknown, key: string, value: unknown): string | undefined => {
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') value = reflectApply(toJSON, value, [key]);
    }
    if (typeof value === 'object' && value !== null) {
      if (
        safe(() => {
          numberValueOf(value);
          return true;
        }, false)
      )
        value = NumberConstructor(value);
      else if (
        safe(() => {
          stringValueOf(value);
          return true;
        }, false)
      )
        value = StringConstructor(value);
      else if (
        safe(() => {
          booleanValueOf(value);
          return true;
        }, false)
      )
        value = booleanValueOf(value);
      else if (
        safe(() => {
          bigIntValueOf(value);
          return true;
        }, false)
      )
        value = bigIntValueOf(value);
    }
    switch (typeof value) {
      case 'string':
      case 'number':
      case 'boolean':
        return jsonStringify(value);
      case 'bigint':
        throw new TypeErrorConstructor("BigInt value can't be serialized in JSON");
      case 'function':
        if (refuse) throw NOT_JSON;
        return undefined;
      case 'object':
        break;
      default:
        return undefined;
    }
    if (value === null) return 'null';
    if (arrayIncludes(ancestors, value)) throw new TypeErrorConstructor('circular reference');
    append(ancestors, value);
    let out: string;
    if (isArray(value)) {
      out = '[';
      const length = value.length;
      for (let index = 0; index < length; index++) {
        const item = walk(value, StringConstructor(index), value[index]);
        out += (index === 0 ? '' : ',') + (item === undefined ? 'null' : item);
      }
      out += ']';
    } else {
      out = '{';
      const keys = objectKeys(value);
      for (let index = 0; index < keys.length; index++) {
        const key = keys[index]!,
          item = walk(value, key, (value as Record<string, unknown>)[key]);
        if (item !== undefined) out += (out === '{' ? '' : ',') + jsonStringify(key) + ':' + item;
      }
      out += '}';
    }
    ancestors.length = ancestors.length - 1;
    return out;
  };
  return walk(undefined, '', value);
}

const nullPrototypeOf = (() => {
  const setPrototypeOf = Object.setPrototypeOf;
  return <T extends object>(object: T): T => setPrototypeOf(object, null) as T;
})();
/** How many objects the walk without a set of seen objects visits before it hands over (see nestsDeeper). */
const TREE_WALK_VISITS = 1_048_576;
/**
 * Whether `value` holds objects nested deeper than `limit` levels (read from own data properties
 * only, so no getter runs; a cycle is left for JSON.stringify to report). Iterative: deep data must
 * not use up the stack here either. Data that is a tree (parsed JSON always is) is walked first without
 * a set of the objects seen, which cost most of the walk on QuickJS (its Map of a 5.7 MB result's
 * 150,000 objects: 1.6 of 2.4 s). A tree walk that passes the limit (deep data, or a cycle) or visits
 * TREE_WALK_VISITS objects (a shared object is visited once per path to it) hands over to the walk that
 * remembers what it saw, whose answer stands; one that does neither saw every path, so that walk would
 * have answered no too.
 */
function nestsDeeper(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return walkNests(value, limit, undefined) && walkNests(value, limit, new MapConstructor<object, boolean>());
}
/** True when the walk finds a level past `limit`; without `seen`, also when it visited TREE_WALK_VISITS objects. */
function walkNests(value: object, limit: number, seen: Map<object, boolean> | undefined): boolean {
  // Stacks without a prototype: a slot is written with [[Set]], which finds no setter a program put on
  // Array.prototype (defineProperty per slot did the same at 2.5x the time of the whole walk on QuickJS).
  const values: object[] = nullPrototypeOf([value]),
    depths = nullPrototypeOf([1]);
  let count = 1,
    visits = 0;
  while (count > 0) {
    count--;
    const current = values[count]!,
      depth = depths[count]!;
    if (depth > limit) return true;
    if (seen === undefined) {
      if (++visits > TREE_WALK_VISITS) return true;
    } else if (mapGet(seen, current) === true) continue;
    else mapSet(seen, current, true);
    const keys = isArray(current) ? undefined : objectKeys(current);
    const length = keys === undefined ? (current as unknown[]).length : keys.length;
    for (let index = 0; index < length; index++) {
      const descriptor = getOwnPropertyDescriptor(current, keys === undefined ? index : keys[index]!);
      const child: unknown = descriptor === undefined ? undefined : descriptor.value;
      if (typeof child !== 'object' || child === null) continue;
      values[count] = child;
      depths[count] = depth + 1;
      count++;
    }
  }
  return false;
}

// The slow path, only to say where a result stops being JSON data once the fast path refused it.
function findNonJson(value: unknown, path: string, stack: readonly unknown[]): string | undefined {
  switch (typeof value) {
    case 'bigint':
      return path + ' is a BigInt; convert it with String() or Number()';
    case 'function':
      return path + ' is a function; return data, not functions';
    case 'symbol':
      return path + ' is a symbol';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return undefined;
  if (arrayIncludes(stack, value)) return path + ' is a circular reference';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return findNonJson((value as { toJSON(): unknown }).toJSON(), path, stack);
  const inner = copyWith(stack, value);
  if (isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findNonJson(value[index], path + '[' + index + ']', inner);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const keys = objectKeys(value);
  for (let index = 0; index < keys.length; index++) {
    const found = findNonJson((value as Record<string, unknown>)[keys[index]!], path + '.' + keys[index], inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

const NOT_JSON = {};
function refuseNonJson(_key: string, value: unknown): unknown {
  const type = typeof value;
  if (type === 'function' || type === 'symbol') throw NOT_JSON;
  return value;
}
// The result's JSON, refusing functions rather than dropping them silently. A replacer would do it, but
// it takes V8 off its fast serializer (measured: 2-3x the time of a 5.7 MB result). JSON.stringify asks
// every object, functions included, for a toJSON: while the result is serialized, Function.prototype's
// throws. A symbol nested in the result is dropped as JSON.stringify drops it. A program that locked
// Function.prototype.toJSON gets the replacer. (In a closure: the names stay out of the bootstrap's scope.)
const serializeResult = (() => {
  const functionPrototype = Function.prototype,
    describeOwn = Object.getOwnPropertyDescriptor,
    deleteOwn = Reflect.deleteProperty;
  const refuseFunction = function toJSON() {
    throw NOT_JSON;
  };
  return (value: unknown): string | undefined => {
    if (typeof value === 'symbol') throw NOT_JSON;
    const previous = describeOwn(functionPrototype, 'toJSON');
    try {
      defineProperty(functionPrototype, 'toJSON', { value: refuseFunction, writable: true, enumerable: false, configurable: true });
    } catch {
      return jsonStringify(value, refuseNonJson);
    }
    try {
      return jsonStringify(value);
    } finally {
      try {
        if (previous === undefined) deleteOwn(functionPrototype, 'toJSON');
        else defineProperty(functionPrototype, 'toJSON', previous);
      } catch {
        // A getter of the result locked it meanwhile: the program's own world.
      }
    }
  };
})();
