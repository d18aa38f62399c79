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
/** Keys (all own keys, hidden ones too) and prototypes the tree walk reads before it hands over to the exact walk (see nestsDeeper). */
const TREE_WALK_READS = 1_048_576;
/** Reads of the tree walk past which stringifyWithinDepth lets the engine's own stack check answer instead. */
const SMALL_DATA_READS = 4_096;
/** Keys past which the tree walk remembers an object: meeting it again hands over (see nestsDeeper). */
const WIDE_OBJECT_KEYS = 64;
/**
 * Whether `value` holds objects nested deeper than `limit` levels, as JSON.stringify would walk them:
 * own enumerable string-keyed data properties, and an array's indices — a hole read through the array's
 * prototypes, as JSON.stringify's [[Get]] does. No getter runs (a proxy's traps do: JSON.stringify runs
 * them again, and a getter may answer it otherwise; neither is a promise of this check). Iterative: deep
 * data must not use up the stack here either.
 *
 * First a walk that treats the data as a tree (parsed JSON always is): no set of the objects seen, which
 * cost most of a walk on QuickJS (a Map of a 5.7 MB result's 150,000 objects: 1.6 of 2.4 s). If it ends
 * within the limit it read every path, and the answer is no. It hands over to the exact walk when it passes
 * the limit (deep data, or a cycle), meets an object of more than WIDE_OBJECT_KEYS keys a second time (a
 * wide object shared or on a cycle would be read once per path), or has read TREE_WALK_READS keys (objects
 * shared on many paths; hidden keys count, as Object.keys pays for them).
 */
function nestsDeeper(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  // A descriptor's `value` is an ordinary read: a 'value' on Object.prototype would answer for an accessor's.
  const ownValues = !hasOwn(ObjectPrototype, 'value');
  return treeMayNestDeeper(value, limit, ownValues, TREE_WALK_READS) && exactlyNestsDeeper(value, limit, ownValues);
}
/** The engine's stack check as it throws: a RangeError with this message (QuickJS-ng words it as V8 does). */
const STACK_OVERFLOW_MESSAGE = 'Maximum call stack size exceeded';
/** Whether `thrown` is what the engine's stack check throws, read without running the program's code (but a proxy's traps). */
function isStackOverflow(thrown: unknown): boolean {
  return safe(() => {
    if (typeof thrown !== 'object' || thrown === null || getPrototypeOf(thrown) !== RangeErrorConstructor.prototype) return false;
    const message = getOwnPropertyDescriptor(thrown, 'message');
    return message !== undefined && hasOwn(message, 'value') && message.value === STACK_OVERFLOW_MESSAGE;
  }, false);
}
/** What stringifyWithinDepth throws for data nested deeper than its limit. */
const NESTS_TOO_DEEPLY = {};
// How many JSON.stringify calls run with the engine's stack lowered (a getter or toJSON they run may
// stringify again): the host hears only of the first and the last.
let lowStackDepth = 0;
/**
 * stringifyJson(value, refuse), but data nested deeper than `limit` levels throws NESTS_TOO_DEEPLY before
 * the engine's native recursion in JSON.stringify can use up the host's stack (0: no limit, V8 needs none).
 * Small data is answered by the tree walk. Larger data goes straight to JSON.stringify with the engine's
 * stack lowered (the host's jsonStack) to what about `limit` levels of it take: the engine's own stack
 * check, which its native recursion otherwise outruns, then stops deeper data with an error it can catch,
 * and a large result is not walked twice (the walk of a 5.7 MB result cost as much as its JSON.stringify).
 * Only when that stack check stops it does the whole walk (nestsDeeper) run: deep data throws, anything else (the stack
 * was partly used already, or the program's own code in a toJSON or getter needed more of it) is
 * stringified again with the whole stack, so its getters and toJSON methods run twice; any other error
 * is the answer, as it would be for small data. A getter or toJSON that answers deeper data the second
 * time is not stopped by this (nor was it by the walk before it): QuickJS's native recursion may then use
 * up the host's stack, and the run ends as run-in-quickjs.ts NATIVE_STACK_OVERFLOW says.
 */
function stringifyWithinDepth(value: unknown, refuse: boolean, limit: number): string | undefined {
  if (limit <= 0 || typeof value !== 'object' || value === null) return stringifyJson(value, refuse);
  if (typeof jsonStack !== 'function') {
    if (nestsDeeper(value, limit)) throw NESTS_TOO_DEEPLY;
    return stringifyJson(value, refuse);
  }
  if (!treeMayNestDeeper(value, limit, !hasOwn(ObjectPrototype, 'value'), SMALL_DATA_READS)) return stringifyJson(value, refuse);
  let thrown: unknown;
  if (lowStackDepth === 0) jsonStack(true);
  lowStackDepth += 1;
  try {
    return stringifyJson(value, refuse);
  } catch (error) {
    thrown = error;
  } finally {
    lowStackDepth -= 1;
    if (lowStackDepth === 0) jsonStack(false);
  }
  // Anything but the engine's stack check (a BigInt, a cycle, the program's own error) is the answer.
  // Asked with the stack given back: asking may take more than the lowered stack had left.
  if (!isStackOverflow(thrown)) throw thrown;
  if (nestsDeeper(value, limit)) throw NESTS_TOO_DEEPLY;
  return stringifyJson(value, refuse);
}
/** The value of a descriptor of a data property; undefined for none or an accessor. */
function dataValue(descriptor: PropertyDescriptor | undefined, ownValues: boolean): unknown {
  if (descriptor === undefined) return undefined;
  return ownValues || hasOwn(descriptor, 'value') ? descriptor.value : undefined;
}
/**
 * A hole of an array, read as JSON.stringify reads it: through the array's prototypes (own data
 * properties only). `steps` counts the prototypes read, for the tree walk's budget.
 */
function holeValue(array: object, index: number, ownValues: boolean, steps?: { count: number }): unknown {
  for (let prototype = getPrototypeOf(array) as object | null; prototype !== null; prototype = getPrototypeOf(prototype) as object | null) {
    if (steps !== undefined) steps.count++;
    const descriptor = getOwnPropertyDescriptor(prototype, index);
    if (descriptor !== undefined) return dataValue(descriptor, ownValues);
  }
  return undefined;
}
/** False when `value`, walked as a tree, nests no deeper than `limit` (every path read); true when it handed over. */
function treeMayNestDeeper(value: object, limit: number, ownValues: boolean, maxReads: number): boolean {
  // Stacks without a prototype: a slot is written with [[Set]], which finds no setter a program put on
  // Array.prototype. Inline, not through helpers: a function call per property costs on QuickJS.
  const values: object[] = nullPrototypeOf([value]),
    depths = nullPrototypeOf([1]),
    steps = { __proto__: null, count: 0 } as unknown as { count: number };
  let count = 1,
    wide: Map<object, boolean> | undefined;
  while (count > 0) {
    count--;
    const current = values[count]!,
      depth = depths[count]!;
    if (depth > limit) return true;
    const array = isArray(current);
    // Every own key, hidden ones too: Object.keys pays for them, so the budget counts them.
    const keys = array ? undefined : reflectOwnKeys(current);
    const length = keys === undefined ? (current as unknown[]).length : keys.length;
    steps.count += 1 + length;
    if (steps.count > maxReads) return true;
    if (length > WIDE_OBJECT_KEYS) {
      if (wide === undefined) wide = new MapConstructor<object, boolean>();
      if (mapGet(wide, current) === true) return true;
      mapSet(wide, current, true);
    }
    for (let index = 0; index < length; index++) {
      let child: unknown;
      if (keys === undefined) {
        const descriptor = getOwnPropertyDescriptor(current, index);
        child =
          descriptor === undefined
            ? holeValue(current, index, ownValues, steps)
            : ownValues
              ? descriptor.value
              : dataValue(descriptor, ownValues);
      } else {
        const key = keys[index]!;
        if (typeof key !== 'string') continue;
        const descriptor = getOwnPropertyDescriptor(current, key);
        if (descriptor === undefined || descriptor.enumerable !== true) continue;
        child = ownValues ? descriptor.value : dataValue(descriptor, ownValues);
      }
      if (typeof child !== 'object' || child === null) continue;
      values[count] = child;
      depths[count] = depth + 1;
      count++;
    }
  }
  return false;
}
/**
 * The exact answer, reading each object once: a depth-first walk that keeps the objects on its path and
 * each finished object's height (1 + its deepest child's). A path longer than `limit`, or a finished
 * object whose height reaches past it from where it is met again, answers yes. An object met again while
 * on its path (a cycle) adds nothing: JSON.stringify reports a cycle it reaches, and one it does not reach
 * (through an object it writes as text: a Date, a boxed primitive, a toJSON) must not hide a deep path
 * after it.
 */
function exactlyNestsDeeper(value: object, limit: number, ownValues: boolean): boolean {
  // 0 while an object is on the path, its height once finished.
  const heights = new MapConstructor<object, number>();
  // Stacks without a prototype, as the tree walk's.
  const objects: object[] = nullPrototypeOf([value]),
    keyLists: (string[] | undefined)[] = nullPrototypeOf([undefined]),
    lengths = nullPrototypeOf([0]),
    next = nullPrototypeOf([0]),
    deepest = nullPrototypeOf([0]);
  let top = 0;
  const enter = (object: object): void => {
    mapSet(heights, object, 0);
    const keys = isArray(object) ? undefined : objectKeys(object);
    objects[top] = object;
    keyLists[top] = keys;
    lengths[top] = keys === undefined ? (object as unknown[]).length : keys.length;
    next[top] = 0;
    deepest[top] = 0;
    top++;
  };
  enter(value);
  while (top > 0) {
    // Depth of the object at the top of the path: top (the root is at 1).
    if (top > limit) return true;
    const at = top - 1;
    const index = next[at]!;
    if (index < lengths[at]!) {
      next[at] = index + 1;
      const object = objects[at]!,
        keys = keyLists[at];
      const descriptor = getOwnPropertyDescriptor(object, keys === undefined ? index : keys[index]!);
      const child = descriptor === undefined && keys === undefined ? holeValue(object, index, ownValues) : dataValue(descriptor, ownValues);
      if (typeof child !== 'object' || child === null) continue;
      const height = mapGet(heights, child);
      if (height === undefined) enter(child);
      else if (height > 0) {
        // Met again from depth top: its deepest level is at top + height.
        if (top + height > limit) return true;
        if (height > deepest[at]!) deepest[at] = height;
      }
      continue;
    }
    const height = deepest[at]! + 1;
    mapSet(heights, objects[at]!, height);
    top--;
    if (top > 0 && height > deepest[top - 1]!) deepest[top - 1] = height;
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
