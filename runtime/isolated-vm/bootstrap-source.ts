/**
 * JavaScript evaluated first in every fresh context. It receives three host callbacks and defines
 * the only non-standard globals the program sees: `console` (captured into logs) and the host global
 * the capability proxies call. It returns `deliver` (settles a call) and `run` (runs the program's
 * wrapped main with the run's settings — the call and argument limits, checked here too so a loop of
 * calls cannot flood the host — and reports its result or error as JSON). Everything the host reads from here crosses
 * as strings, so no object of either side is shared.
 */
import { SANDBOX_HOST_GLOBAL } from '../../core/manifest.js';

export const BOOTSTRAP_SOURCE = String.raw`
const send = $0, writeLog = $1, complete = $2;
// Set by run(): an isolate may be prepared before the run (and its limits) are known.
let settings = { maxCalls: 0, callLimitError: '', maxArgumentBytes: 0, argumentLimitError: '' };
let callsMade = 0;
const HOST_GLOBAL = ${JSON.stringify(SANDBOX_HOST_GLOBAL)};
const TOOL_ERROR = Symbol('toolError');
const pending = new Map();
let nextId = 0;

for (const name of ['SharedArrayBuffer', 'Atomics', 'WebAssembly']) delete globalThis[name];

function safe(read, fallback) { try { return read(); } catch { return fallback; } }

function inspect(value, depth, seen) {
  switch (typeof value) {
    case 'string': return depth === 0 ? value : JSON.stringify(value);
    case 'bigint': return value + 'n';
    case 'symbol': return safe(() => value.toString(), 'Symbol()');
    case 'function': return safe(() => /^class\b/.test(Function.prototype.toString.call(value)), false)
      ? '[class ' + (value.name || 'anonymous') + ']' : '[Function: ' + (value.name || 'anonymous') + ']';
    case 'object': break;
    default: return String(value);
  }
  if (value === null) return 'null';
  if (seen.includes(value)) return '[Circular]';
  if (value instanceof Error) return safe(() => String(value.stack || value.name + ': ' + value.message), '[Error]');
  if (value instanceof Date) return safe(() => value.toISOString(), 'Invalid Date');
  if (value instanceof RegExp) return String(value);
  if (depth > 4) return Array.isArray(value) ? '[Array]' : '[Object]';
  const inner = seen.concat([value]);
  const show = (item) => safe(() => inspect(item, depth + 1, inner), '[unreadable]');
  if (Array.isArray(value)) {
    const items = value.slice(0, 100).map(show);
    if (value.length > 100) items.push('... ' + (value.length - 100) + ' more items');
    return items.length === 0 ? '[]' : '[ ' + items.join(', ') + ' ]';
  }
  if (value instanceof Map) return 'Map(' + value.size + ') { ' + [...value].slice(0, 100).map(([k, v]) => show(k) + ' => ' + show(v)).join(', ') + ' }';
  if (value instanceof Set) return 'Set(' + value.size + ') { ' + [...value].slice(0, 100).map(show).join(', ') + ' }';
  const keys = Object.keys(value);
  const entries = keys.slice(0, 100).map((key) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)) + ': ' + safe(() => show(value[key]), '[Getter threw]'));
  if (keys.length > 100) entries.push('... ' + (keys.length - 100) + ' more keys');
  const constructorName = safe(() => Object.getPrototypeOf(value)?.constructor?.name, undefined);
  const prefix = constructorName && constructorName !== 'Object' ? constructorName + ' ' : '';
  return prefix + (entries.length === 0 ? '{}' : '{ ' + entries.join(', ') + ' }');
}

function logger(level) {
  return (...values) => {
    const message = safe(() => values.map((value) => inspect(value, 0, [])).join(' '), '[unformattable log message]');
    if (!writeLog(level, message)) throw new RangeError('console output passed the output limit of this run');
  };
}
globalThis.console = Object.freeze({
  log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug'), trace: logger('debug'),
});

// Sends one call and returns the promise of its outcome. Not async: the arguments' JSON must not stay
// alive while the program awaits (a thousand pending calls would keep a thousand copies).
function dispatch(capability, fn, args, resultMode) {
  let json;
  try {
    json = JSON.stringify(args === undefined ? null : args);
  } catch (cause) {
    throw new TypeError('arguments of ' + capability + '.' + fn + ' are not JSON-serialisable: ' + safe(() => cause.message, 'unknown reason'));
  }
  const id = ++nextId;
  const outcome = new Promise((resolve) => pending.set(id, resolve));
  // Names go into JSON text: escaped, so a quote in a made-up name cannot break the message.
  const inJson = (text) => JSON.stringify(text).slice(1, -1);
  const fill = (template) => JSON.parse(template.replace('{capability}', () => inJson(capability)).replace('{function}', () => inJson(fn)).replace('{size}', () => String(json.length)));
  // A UTF-8 byte per character at least: text longer than the limit never crosses to the host.
  if (json.length > settings.maxArgumentBytes) settle(id, false, fill(settings.argumentLimitError));
  else if (++callsMade > settings.maxCalls) settle(id, false, fill(settings.callLimitError));
  else send(id, capability, fn, json, resultMode === 'full' ? 'full' : 'value');
  return outcome;
}

// An async function, so that a failed call's error is created after the await: V8 then appends the
// awaiting program frames ("at async ...") to its stack for free, instead of a stack capture per call.
async function call(capability, fn, args, resultMode) {
  capability = String(capability);
  fn = String(fn);
  const outcome = dispatch(capability, fn, args, resultMode);
  const { ok, payload } = await outcome;
  if (ok) return payload;
  const data = payload.data || {};
  const error = new Error(payload.message);
  error.name = 'ToolCallError';
  error.code = data.code || 'TOOL_FAILED';
  error.capability = data.capability || capability;
  error.function = data.function || fn;
  if (data.details !== undefined) error.details = data.details;
  Object.defineProperty(error, TOOL_ERROR, { value: true });
  throw error;
}
const host = Object.freeze({ call });
Object.defineProperty(globalThis, HOST_GLOBAL, { value: host, enumerable: false, writable: false, configurable: false });

function settle(id, ok, payload) {
  const resolve = pending.get(id);
  if (resolve === undefined) return;
  pending.delete(id);
  resolve({ ok, payload });
}

// The host sends the replies that are ready together: one JSON array of [id, ok, payload] triples.
function deliver(batch) {
  for (const [id, ok, payload] of JSON.parse(batch)) settle(id, ok, payload);
}

function toJson(value, path, stack) {
  switch (typeof value) {
    case 'string': case 'boolean': return value;
    case 'number': return Number.isFinite(value) ? value : null;
    case 'undefined': return undefined;
    case 'bigint': throw new TypeError('the result is not JSON-serialisable: ' + path + ' is a BigInt; convert it with String() or Number()');
    case 'function': throw new TypeError('the result is not JSON-serialisable: ' + path + ' is a function; return data, not functions');
    case 'symbol': throw new TypeError('the result is not JSON-serialisable: ' + path + ' is a symbol');
  }
  if (value === null) return null;
  if (stack.includes(value)) throw new TypeError('the result is not JSON-serialisable: ' + path + ' is a circular reference');
  if (typeof value.toJSON === 'function') return toJson(value.toJSON(), path, stack);
  const inner = stack.concat([value]);
  if (Array.isArray(value)) return value.map((item, index) => { const json = toJson(item, path + '[' + index + ']', inner); return json === undefined ? null : json; });
  const out = {};
  for (const key of Object.keys(value)) {
    const json = toJson(value[key], path + '.' + key, inner);
    if (json !== undefined) out[key] = json;
  }
  return out;
}

function describeError(thrown) {
  const isError = safe(() => thrown instanceof Error || (typeof thrown === 'object' && thrown !== null && typeof thrown.stack === 'string'), false);
  if (!isError) {
    return { name: 'ThrownValue', code: 'RUNTIME_ERROR', message: 'the program threw a non-Error value: ' + safe(() => inspect(thrown, 1, []), '[unreadable]') };
  }
  const text = (read, fallback) => safe(() => { const value = read(); return typeof value === 'string' ? value : fallback; }, fallback);
  const description = { name: text(() => thrown.name, 'Error'), message: text(() => thrown.message, ''), stack: text(() => thrown.stack, undefined), code: 'RUNTIME_ERROR' };
  if (safe(() => thrown[TOOL_ERROR] === true, false)) {
    description.code = text(() => thrown.code, 'TOOL_FAILED');
    description.capability = text(() => thrown.capability, undefined);
    description.function = text(() => thrown.function, undefined);
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
    complete(false, JSON.stringify(describeError(thrown)));
    return;
  }
  let json;
  try {
    json = JSON.stringify(toJson(value, '$', [])) ?? 'null';
  } catch (thrown) {
    const description = describeError(thrown);
    complete(false, JSON.stringify({ name: 'ResultError', code: 'RESULT_NOT_SERIALIZABLE', message: description.message }));
    return;
  }
  complete(true, json);
}

return { deliver, run };
`;
