/**
 * JavaScript evaluated first in every fresh context, before any code of the program. It receives five
 * host callbacks and defines the only non-standard globals the program sees: `console` (captured into
 * logs), the host global the capability proxies call, and the Web platform globals of
 * sandbox-globals-source.ts (timers, URL, TextEncoder, structuredClone, …). It returns `deliver`
 * (settles calls), `run` (runs the program's wrapped main with the run's settings and reports its
 * result or error as JSON) and `wake` (runs a timer the host found due).
 *
 * The program is hostile, so this code is strict (no `arguments.callee`, `fn.caller` or CallSite
 * `getFunction()` reaches it) and uses only intrinsics it captured before the program ran: a program
 * that edits `JSON.stringify`, `Map.prototype.get` or `Array.prototype.push` changes its own world,
 * not this code's. Whether an error is a real tool error is kept in a private WeakMap, so a program
 * cannot dress its own error up as one the host decided (e.g. a fake `TIMEOUT`). Everything the host
 * reads from here crosses as strings, so no object of either side is shared.
 */
import { SANDBOX_HOST_GLOBAL } from '../../core/manifest.js';
import { SANDBOX_GLOBALS_SOURCE } from './sandbox-globals-source.js';

export const BOOTSTRAP_SOURCE = String.raw`'use strict';
const send = $0, writeLog = $1, complete = $2, timerHost = $3, urlHost = $4;

// Intrinsics, captured before any program code runs. \`uncurry(f)(self, ...args)\` = f.call(self, ...args)
// through the Function.prototype.call of this moment.
const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const jsonParse = JSON.parse, jsonStringify = JSON.stringify;
const ObjectFreeze = Object.freeze, defineProperty = Object.defineProperty, objectKeys = Object.keys;
const getPrototypeOf = Object.getPrototypeOf, isArray = Array.isArray, isFinite = Number.isFinite;
const MapConstructor = Map, WeakMapConstructor = WeakMap, PromiseConstructor = Promise;
const ErrorConstructor = Error, TypeErrorConstructor = TypeError, RangeErrorConstructor = RangeError;
const StringConstructor = String;
const mapGet = uncurry(Map.prototype.get), mapSet = uncurry(Map.prototype.set), mapDelete = uncurry(Map.prototype.delete);
const mapEntries = uncurry(Map.prototype.entries), setValues = uncurry(Set.prototype.values);
const weakMapGet = uncurry(WeakMap.prototype.get), weakMapSet = uncurry(WeakMap.prototype.set);
const arrayJoin = uncurry(Array.prototype.join), arrayIncludes = uncurry(Array.prototype.includes);
const hasOwn = uncurry(Object.prototype.hasOwnProperty);
const iteratorNext = uncurry(getPrototypeOf(new Map().entries()).next), setIteratorNext = uncurry(getPrototypeOf(new Set().values()).next);
const stringSlice = uncurry(String.prototype.slice), stringIndexOf = uncurry(String.prototype.indexOf), regExpTest = uncurry(RegExp.prototype.test);
const functionToString = uncurry(Function.prototype.toString), symbolToString = uncurry(Symbol.prototype.toString);
const dateToISOString = uncurry(Date.prototype.toISOString), regExpToString = uncurry(RegExp.prototype.toString);
const mapSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, 'size').get);
const setSize = uncurry(Object.getOwnPropertyDescriptor(Set.prototype, 'size').get);
const isMap = (value) => { try { mapSize(value); return true; } catch { return false; } };
const isSet = (value) => { try { setSize(value); return true; } catch { return false; } };
const isDate = (value) => { try { dateToISOString(value); return true; } catch (error) { return error instanceof RangeErrorConstructor; } };
const isRegExp = (value) => { try { regExpTest(value, ''); return true; } catch { return false; } };
const CLASS_SOURCE = /^class\b/, IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// Set by run(): an isolate may be prepared before the run (and its limits) are known.
// \`callSites\`: the engine appends no awaiting frames to an error made after an await (QuickJS), so
// each call keeps the stack of where the program made it, for its error if it fails.
// \`maxJsonDepth\`: deeper data is refused before JSON.stringify sees it (QuickJS: its native recursion
// there can use up the host's stack, which ends the run uncatchably); 0 = no such check (V8).
let settings = { maxCalls: 0, callLimitError: '', maxArgumentBytes: 0, argumentLimitError: '', callSites: false, maxJsonDepth: 0 };
let callsMade = 0;
const HOST_GLOBAL = ${JSON.stringify(SANDBOX_HOST_GLOBAL)};
/** Real tool errors (made by call() from the host's reply) → the host's error data. */
const toolErrors = new WeakMapConstructor();
const pending = new MapConstructor();
/** The settled outcomes this code made, so call() can tell them from look-alikes. */
const outcomes = new WeakMapConstructor();
let nextId = 0;

// Also what an engine adds beyond the ES2022 the type check declares: QuickJS's InternalError and its
// high-resolution performance clock, and the newer Iterator and Float16Array.
for (const name of ['SharedArrayBuffer', 'Atomics', 'WebAssembly', 'performance', 'InternalError', 'Iterator', 'Float16Array']) delete globalThis[name];

// QuickJS's CallSite.getFunction() returns the function of every frame, strict ones too (V8 gives
// undefined for a strict frame and all below it): a program's Error.prepareStackTrace would get the
// bootstrap's functions, and builtins it calls, as values. Where the engine does that, CallSites give
// no function and no \`this\` at all, locked so a program cannot put them back.
(() => {
  // Assigned, not defined: QuickJS keeps the hook behind an accessor of its own.
  const errorConstructor = Error, previous = Object.getOwnPropertyDescriptor(errorConstructor, 'prepareStackTrace');
  let site;
  errorConstructor.prepareStackTrace = (_error, sites) => { site = sites[0]; return ''; };
  try {
    void new ErrorConstructor().stack;
  } finally {
    if (previous === undefined) delete errorConstructor.prepareStackTrace;
    else if (hasOwn(previous, 'value')) errorConstructor.prepareStackTrace = previous.value;
    else errorConstructor.prepareStackTrace = undefined;
  }
  if (site === undefined || typeof site.getFunction !== 'function' || site.getFunction() === undefined) return;
  const callSitePrototype = getPrototypeOf(site);
  for (const name of ['getFunction', 'getThis']) {
    defineProperty(callSitePrototype, name, { value: { [name]() { return undefined; } }[name], writable: false, enumerable: false, configurable: false });
  }
})();

// QuickJS's JSON.stringify keeps the objects it is inside of in an internal array that it fills with
// [[Set]], so a setter the program put on Array.prototype[n] (or Object.prototype[n]) runs inside it,
// with that array as \`this\`. Where the engine does that, and only while such a key exists, the
// bootstrap serialises with its own stringifyJson below instead.
const stringifyRunsIndexSetters = (() => {
  const arrayPrototype = Array.prototype;
  let ran = false;
  defineProperty(arrayPrototype, '0', { set() { ran = true; }, configurable: true });
  try {
    jsonStringify([[]]);
  } finally {
    delete arrayPrototype[0];
  }
  return ran;
})();
const INDEX_KEY = /^(?:0|[1-9][0-9]*)$/;
function hasIndexKey(object) {
  const keys = reflectOwnKeys(object);
  for (let index = 0; index < keys.length; index++) if (typeof keys[index] === 'string' && regExpTest(INDEX_KEY, keys[index])) return true;
  return false;
}
/** JSON.stringify(value), or with \`refuse\` a function anywhere in it throws NOT_JSON (see serializeResult). */
function stringifyJson(value, refuse) {
  if (!stringifyRunsIndexSetters || !(hasIndexKey(ArrayPrototype) || hasIndexKey(ObjectPrototype))) return refuse ? serializeResult(value) : jsonStringify(value);
  return stringifyWithoutSetters(value, refuse);
}
/** JSON.stringify's algorithm (no replacer, no indent), keeping its own state in own properties only. */
function stringifyWithoutSetters(value, refuse) {
  const ancestors = [];
  const walk = (holder, key, value) => {
    if ((typeof value === 'object' && value !== null) || typeof value === 'bigint') {
      const toJSON = value.toJSON;
      if (typeof toJSON === 'function') value = reflectApply(toJSON, value, [key]);
    }
    if (typeof value === 'object' && value !== null) {
      if (safe(() => { numberValueOf(value); return true; }, false)) value = NumberConstructor(value);
      else if (safe(() => { stringValueOf(value); return true; }, false)) value = StringConstructor(value);
      else if (safe(() => { booleanValueOf(value); return true; }, false)) value = booleanValueOf(value);
      else if (safe(() => { bigIntValueOf(value); return true; }, false)) value = bigIntValueOf(value);
    }
    switch (typeof value) {
      case 'string': case 'number': case 'boolean': return jsonStringify(value);
      case 'bigint': throw new TypeErrorConstructor('BigInt value can\'t be serialized in JSON');
      case 'function': if (refuse) throw NOT_JSON; return undefined;
      case 'object': break;
      default: return undefined;
    }
    if (value === null) return 'null';
    if (arrayIncludes(ancestors, value)) throw new TypeErrorConstructor('circular reference');
    append(ancestors, value);
    let out;
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
        const item = walk(value, keys[index], value[keys[index]]);
        if (item !== undefined) out += (out === '{' ? '' : ',') + jsonStringify(keys[index]) + ':' + item;
      }
      out += '}';
    }
    ancestors.length = ancestors.length - 1;
    return out;
  };
  return walk(undefined, '', value);
}

/**
 * Whether \`value\` holds objects nested deeper than \`limit\` levels (read from own data properties
 * only, so no getter runs; a cycle is left for JSON.stringify to report). Iterative: deep data must
 * not use up the stack here either.
 */
function nestsDeeper(value, limit) {
  if (typeof value !== 'object' || value === null) return false;
  const values = [value], depths = [1], seen = new MapConstructor();
  let count = 1;
  while (count > 0) {
    count--;
    const current = values[count], depth = depths[count];
    if (depth > limit) return true;
    if (mapGet(seen, current) === true) continue;
    mapSet(seen, current, true);
    const keys = isArray(current) ? undefined : objectKeys(current);
    const length = keys === undefined ? current.length : keys.length;
    for (let index = 0; index < length; index++) {
      const descriptor = getOwnPropertyDescriptor(current, keys === undefined ? index : keys[index]);
      const child = descriptor === undefined ? undefined : descriptor.value;
      if (typeof child !== 'object' || child === null) continue;
      defineProperty(values, count, { value: child, writable: true, enumerable: true, configurable: true });
      defineProperty(depths, count, { value: depth + 1, writable: true, enumerable: true, configurable: true });
      count++;
    }
  }
  return false;
}

// Not Array.prototype.push: it would run a setter the program put on Array.prototype[n].
function append(array, item) {
  defineProperty(array, array.length, { value: item, writable: true, enumerable: true, configurable: true });
}

function copyWith(items, item) {
  const copy = [];
  for (let index = 0; index < items.length; index++) defineProperty(copy, index, { value: items[index], writable: true, enumerable: true, configurable: true });
  defineProperty(copy, items.length, { value: item, writable: true, enumerable: true, configurable: true });
  return copy;
}

function own(object, key) {
  return typeof object === 'object' && object !== null && hasOwn(object, key) ? object[key] : undefined;
}

function safe(read, fallback) { try { return read(); } catch { return fallback; } }

function inspect(value, depth, seen) {
  switch (typeof value) {
    case 'string': return depth === 0 ? value : jsonStringify(value);
    case 'bigint': return StringConstructor(value) + 'n';
    case 'symbol': return safe(() => symbolToString(value), 'Symbol()');
    case 'function': return safe(() => regExpTest(CLASS_SOURCE, functionToString(value)), false)
      ? '[class ' + (safe(() => value.name, '') || 'anonymous') + ']' : '[Function: ' + (safe(() => value.name, '') || 'anonymous') + ']';
    case 'object': break;
    default: return StringConstructor(value);
  }
  if (value === null) return 'null';
  if (arrayIncludes(seen, value)) return '[Circular]';
  if (value instanceof ErrorConstructor) return safe(() => StringConstructor(value.stack || value.name + ': ' + value.message), '[Error]');
  if (isDate(value)) return safe(() => dateToISOString(value), 'Invalid Date');
  if (isRegExp(value)) return safe(() => regExpToString(value), '[RegExp]');
  if (depth > 4) return isArray(value) ? '[Array]' : '[Object]';
  const inner = copyWith(seen, value);
  const show = (item) => safe(() => inspect(item, depth + 1, inner), '[unreadable]');
  const items = [];
  if (isArray(value)) {
    const length = value.length;
    for (let index = 0; index < length && index < 100; index++) append(items, show(value[index]));
    if (length > 100) append(items, '... ' + (length - 100) + ' more items');
    return items.length === 0 ? '[]' : '[ ' + arrayJoin(items, ', ') + ' ]';
  }
  if (isMap(value)) {
    const iterator = mapEntries(value);
    for (let step = iteratorNext(iterator); !step.done && items.length < 100; step = iteratorNext(iterator)) append(items, show(step.value[0]) + ' => ' + show(step.value[1]));
    return 'Map(' + mapSize(value) + ') { ' + arrayJoin(items, ', ') + ' }';
  }
  if (isSet(value)) {
    const iterator = setValues(value);
    for (let step = setIteratorNext(iterator); !step.done && items.length < 100; step = setIteratorNext(iterator)) append(items, show(step.value));
    return 'Set(' + setSize(value) + ') { ' + arrayJoin(items, ', ') + ' }';
  }
  // URL and URLSearchParams keep their state out of sight (see sandbox-globals-source.ts): shown by it.
  const web = inspectWebGlobal(value, show);
  if (web !== undefined) return web;
  const keys = objectKeys(value);
  for (let index = 0; index < keys.length && index < 100; index++) {
    const key = keys[index];
    append(items, (regExpTest(IDENTIFIER, key) ? key : jsonStringify(key)) + ': ' + safe(() => show(value[key]), '[Getter threw]'));
  }
  if (keys.length > 100) append(items, '... ' + (keys.length - 100) + ' more keys');
  const constructorName = safe(() => getPrototypeOf(value)?.constructor?.name, undefined);
  const prefix = typeof constructorName === 'string' && constructorName !== 'Object' ? constructorName + ' ' : '';
  return prefix + (items.length === 0 ? '{}' : '{ ' + arrayJoin(items, ', ') + ' }');
}

function logger(level) {
  return (...values) => {
    const parts = [];
    for (let index = 0; index < values.length; index++) append(parts, safe(() => inspect(values[index], 0, []), '[unformattable]'));
    if (!writeLog(level, arrayJoin(parts, ' '))) throw new RangeErrorConstructor('console output passed the output limit of this run');
  };
}
const consoleObject = ObjectFreeze({
  log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug'), trace: logger('debug'),
});
defineProperty(globalThis, 'console', { value: consoleObject, enumerable: false, writable: true, configurable: true });

// Names go into JSON text: escaped, so a quote in a made-up name cannot break the message.
const inJson = (text) => stringSlice(jsonStringify(text), 1, -1);
function replaceAll(text, token, replacement) {
  let out = '';
  for (let at = stringIndexOf(text, token); at !== -1; at = stringIndexOf(text, token)) {
    out += stringSlice(text, 0, at) + replacement;
    text = stringSlice(text, at + token.length);
  }
  return out + text;
}
function fill(template, capability, fn, size) {
  return jsonParse(replaceAll(replaceAll(replaceAll(template, '{capability}', inJson(capability)), '{function}', inJson(fn)), '{size}', StringConstructor(size)));
}

// Sends one call and returns the promise of its outcome. Not async: the arguments' JSON must not stay
// alive while the program awaits (a thousand pending calls would keep a thousand copies).
function dispatch(capability, fn, args, resultMode) {
  let json;
  try {
    if (settings.maxJsonDepth > 0 && nestsDeeper(args, settings.maxJsonDepth)) {
      throw new TypeErrorConstructor('they nest too deeply (more than ' + settings.maxJsonDepth + ' levels, the most the sandbox sends)');
    }
    json = stringifyJson(args === undefined ? null : args, false);
  } catch (cause) {
    throw new TypeErrorConstructor('arguments of ' + capability + '.' + fn + ' are not JSON-serialisable: ' + safe(() => StringConstructor(cause.message), 'unknown reason'));
  }
  if (json === undefined) json = 'null';
  const id = ++nextId;
  let resolveOutcome;
  const outcome = new PromiseConstructor((resolve) => { resolveOutcome = resolve; });
  mapSet(pending, id, resolveOutcome);
  // A UTF-8 byte per character at least: text longer than the limit never crosses to the host.
  if (json.length > settings.maxArgumentBytes) settle(id, false, fill(settings.argumentLimitError, capability, fn, json.length));
  else if (++callsMade > settings.maxCalls) settle(id, false, fill(settings.callLimitError, capability, fn, 0));
  else send(id, capability, fn, json, resultMode === 'full' ? 'full' : 'value');
  return outcome;
}

// An async function, so that a failed call's error is created after the await: V8 then appends the
// awaiting program frames ("at async ...") to its stack for free, instead of a stack capture per call.
async function call(capability, fn, args, resultMode) {
  capability = StringConstructor(capability);
  fn = StringConstructor(fn);
  const site = settings.callSites === true ? new ErrorConstructor() : undefined;
  const outcome = await dispatch(capability, fn, args, resultMode);
  // A program that patched Promise.prototype can settle this await itself: only records settle() made count.
  if (weakMapGet(outcomes, outcome) !== true) throw new TypeErrorConstructor('the sandbox refused a capability result it did not receive from the host (Promise internals were modified)');
  if (outcome.ok) return outcome.payload;
  // The host's error data, read as own properties only: a getter the program put on Object.prototype
  // must not fill in a missing field.
  const payload = outcome.payload;
  const data = own(payload, 'data');
  const field = (name, fallback) => { const value = own(data, name); return typeof value === 'string' ? value : fallback; };
  const error = new ErrorConstructor(StringConstructor(own(payload, 'message')));
  const record = ObjectFreeze({ code: field('code', 'TOOL_FAILED'), capability: field('capability', capability), function: field('function', fn) });
  const details = own(data, 'details');
  const fields = { name: 'ToolCallError', code: record.code, capability: record.capability, function: record.function, details };
  const keys = objectKeys(fields);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index];
    if (fields[key] !== undefined) defineProperty(error, key, { value: fields[key], writable: true, enumerable: key !== 'name', configurable: true });
  }
  if (site !== undefined) defineProperty(error, 'stack', { value: programStack(safe(() => site.stack, '')), writable: true, enumerable: false, configurable: true });
  weakMapSet(toolErrors, error, record);
  throw error;
}
const host = ObjectFreeze({ call });

// The frames of a captured stack below the bootstrap's own (the program's and its modules').
const FRAME_OF_BOOTSTRAP = /\(bootstrap\.js[:)]/;
function programStack(stack) {
  let out = '';
  let rest = StringConstructor(stack);
  while (rest !== '') {
    const end = stringIndexOf(rest, '\n');
    const line = end === -1 ? rest : stringSlice(rest, 0, end);
    rest = end === -1 ? '' : stringSlice(rest, end + 1);
    if (line !== '' && !regExpTest(FRAME_OF_BOOTSTRAP, line)) out += line + '\n';
  }
  return out;
}
defineProperty(globalThis, HOST_GLOBAL, { value: host, enumerable: false, writable: false, configurable: false });

function settle(id, ok, payload) {
  const resolve = mapGet(pending, id);
  if (resolve === undefined) return;
  mapDelete(pending, id);
  const record = ObjectFreeze({ ok, payload });
  weakMapSet(outcomes, record, true);
  resolve(record);
}

// The host sends the replies that are ready together: one JSON array of [id, ok, payload] triples.
function deliver(batch) {
  const replies = jsonParse(batch);
  for (let index = 0; index < replies.length; index++) {
    const reply = replies[index];
    settle(reply[0], reply[1], reply[2]);
  }
}

// The slow path, only to say where a result stops being JSON data once the fast path refused it.
function findNonJson(value, path, stack) {
  switch (typeof value) {
    case 'bigint': return path + ' is a BigInt; convert it with String() or Number()';
    case 'function': return path + ' is a function; return data, not functions';
    case 'symbol': return path + ' is a symbol';
    case 'object': break;
    default: return undefined;
  }
  if (value === null) return undefined;
  if (arrayIncludes(stack, value)) return path + ' is a circular reference';
  if (typeof value.toJSON === 'function') return findNonJson(value.toJSON(), path, stack);
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
    const found = findNonJson(value[keys[index]], path + '.' + keys[index], inner);
    if (found !== undefined) return found;
  }
  return undefined;
}

const NOT_JSON = {};
function refuseNonJson(key, value) {
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
  const functionPrototype = Function.prototype, describeOwn = Object.getOwnPropertyDescriptor, deleteOwn = Reflect.deleteProperty;
  const refuseFunction = function toJSON() { throw NOT_JSON; };
  return (value) => {
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

function describeError(thrown) {
  const isError = safe(() => thrown instanceof ErrorConstructor || (typeof thrown === 'object' && thrown !== null && typeof thrown.stack === 'string'), false);
  if (!isError) {
    return { __proto__: null, name: 'ThrownValue', code: 'RUNTIME_ERROR', message: 'the program threw a non-Error value: ' + safe(() => inspect(thrown, 1, []), '[unreadable]') };
  }
  const text = (read, fallback) => safe(() => { const value = read(); return typeof value === 'string' ? value : fallback; }, fallback);
  // Null prototypes: JSON.stringify must not find a toJSON the program put on Object.prototype.
  const description = { __proto__: null, name: text(() => thrown.name, 'Error'), message: text(() => thrown.message, ''), stack: text(() => thrown.stack, undefined), code: 'RUNTIME_ERROR' };
  const tool = weakMapGet(toolErrors, thrown);
  if (tool !== undefined) {
    description.code = tool.code;
    description.capability = tool.capability;
    description.function = tool.function;
  }
  return description;
}

async function run(main, runSettings) {
  settings = runSettings;
  let value;
  try {
    value = await main();
    if (typeof value === 'function') value = await value();
  } catch (thrown) {
    complete(false, stringifyJson(describeError(thrown), false));
    return;
  }
  let json;
  try {
    if (settings.maxJsonDepth > 0 && nestsDeeper(value, settings.maxJsonDepth)) {
      complete(false, stringifyJson({ __proto__: null, name: 'ResultError', code: 'RESULT_NOT_SERIALIZABLE', message: 'the result is not JSON-serialisable: it nests too deeply (more than ' + settings.maxJsonDepth + ' levels, the most the sandbox returns)' }, false));
      return;
    }
    json = stringifyJson(value, true);
  } catch (thrown) {
    const where = safe(() => findNonJson(value, '$', []), undefined);
    const reason = where !== undefined ? where : thrown === NOT_JSON ? 'it holds a function or symbol' : safe(() => StringConstructor(thrown.message), 'unknown reason');
    complete(false, stringifyJson({ __proto__: null, name: 'ResultError', code: 'RESULT_NOT_SERIALIZABLE', message: 'the result is not JSON-serialisable: ' + reason }, false));
    return;
  }
  complete(true, json === undefined ? 'null' : json);
}

${SANDBOX_GLOBALS_SOURCE}
return { deliver, run, wake };
`;
