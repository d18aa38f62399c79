// Set by run(): an isolate may be prepared before the run (and its limits) are known.
// `callSites`: the engine appends no awaiting frames to an error made after an await (QuickJS), so
// each call keeps the stack of where the program made it, for its error if it fails.
// `maxJsonDepth`: deeper data is refused (json.ts, stringifyWithinDepth) before JSON.stringify's native
// recursion can use up the host's stack, which ends the run uncatchably (QuickJS); 0 = no such check (V8).
/** What the host sends with run(), every field; run() keeps only their own values (see ownSettings). */
interface RunSettings {
  maxCalls: number;
  callLimitError: string;
  maxArgumentBytes: number;
  argumentLimitError: string;
  callSites: boolean;
  maxJsonDepth: number;
}
/** A call's outcome as settle() made it. */
interface CallOutcome {
  readonly ok: boolean;
  readonly payload: unknown;
}
/** What the host's error data said of a real tool error. */
interface ToolErrorRecord {
  readonly code: string;
  readonly capability: string;
  readonly function: string;
}
// eslint-disable-next-line prefer-const -- run() (run.ts) sets it
let settings: RunSettings = ownSettings(undefined);
// The host's settings as a null-prototype copy of their own fields, of the right types (a missing or
// mistyped one counts as none): a getter the program puts on Object.prototype later must never be
// what a read of a field finds, and nothing of the program's runs when one is read.
function ownSettings(from: unknown): RunSettings {
  const number = (key: string): number => {
    const value = own(from, key);
    return typeof value === 'number' ? value : 0;
  };
  const text = (key: string): string => {
    const value = own(from, key);
    return typeof value === 'string' ? value : '';
  };
  const copy = {
    __proto__: null,
    maxCalls: number('maxCalls'),
    callLimitError: text('callLimitError'),
    maxArgumentBytes: number('maxArgumentBytes'),
    argumentLimitError: text('argumentLimitError'),
    callSites: own(from, 'callSites') === true,
    maxJsonDepth: number('maxJsonDepth'),
  };
  return ObjectFreeze(copy) as RunSettings;
}
let callsMade = 0;
/** Real tool errors (made by call() from the host's reply) → the host's error data. */
const toolErrors = new WeakMapConstructor<object, ToolErrorRecord>();
const pending = new MapConstructor<number, (outcome: CallOutcome) => void>();
/** The settled outcomes this code made, so call() can tell them from look-alikes. */
const outcomes = new WeakMapConstructor<object, boolean>();
let nextId = 0;

// Names go into JSON text: escaped, so a quote in a made-up name cannot break the message.
const inJson = (text: string): string => stringSlice(jsonStringify(text), 1, -1);
function replaceAll(text: string, token: string, replacement: string): string {
  let out = '';
  for (let at = stringIndexOf(text, token); at !== -1; at = stringIndexOf(text, token)) {
    out += stringSlice(text, 0, at) + replacement;
    text = stringSlice(text, at + token.length);
  }
  return out + text;
}
function fill(template: string, capability: string, fn: string, size: number): unknown {
  return jsonParse(
    replaceAll(
      replaceAll(replaceAll(template, '{capability}', inJson(capability)), '{function}', inJson(fn)),
      '{size}',
      StringConstructor(size),
    ),
  );
}

// Sends one call and returns the promise of its outcome. Not async: the arguments' JSON must not stay
// alive while the program awaits (a thousand pending calls would keep a thousand copies).
function dispatch(capability: string, fn: string, args: unknown, resultMode: unknown): Promise<CallOutcome> {
  let json: string | undefined;
  try {
    json = stringifyWithinDepth(args === undefined ? null : args, false, settings.maxJsonDepth);
  } catch (thrown) {
    const reason =
      thrown === NESTS_TOO_DEEPLY
        ? 'they nest too deeply (more than ' + settings.maxJsonDepth + ' levels, the most the sandbox sends)'
        : safe(() => StringConstructor((thrown as { message?: unknown }).message), 'unknown reason');
    throw invalidArguments(capability, fn, 'arguments of ' + capability + '.' + fn + ' are not JSON-serialisable: ' + reason);
  }
  if (json === undefined) json = 'null';
  const id = ++nextId;
  let resolveOutcome!: (outcome: CallOutcome) => void;
  const outcome = new PromiseConstructor<CallOutcome>((resolve) => {
    resolveOutcome = resolve;
  });
  mapSet(pending, id, resolveOutcome);
  // A UTF-8 byte per character at least: text longer than the limit never crosses to the host.
  if (json.length > settings.maxArgumentBytes) settle(id, false, fill(settings.argumentLimitError, capability, fn, json.length));
  else if (++callsMade > settings.maxCalls) settle(id, false, fill(settings.callLimitError, capability, fn, 0));
  else send(id, capability, fn, json, resultMode === 'full' ? 'full' : 'value');
  return outcome;
}

// A refusal of arguments that cannot be sent: a TypeError, with the code, capability and function every
// other refusal a program can catch has (INVALID_ARGUMENTS, as the argument-size refusal), also when the
// run ends with it uncaught.
function invalidArguments(capability: string, fn: string, message: string): Error {
  const error = new TypeErrorConstructor(message);
  const record = ObjectFreeze({ code: 'INVALID_ARGUMENTS', capability, function: fn });
  const fields: Record<string, unknown> = { code: record.code, capability, function: fn };
  const keys = objectKeys(fields);
  for (let index = 0; index < keys.length; index++)
    defineProperty(error, keys[index]!, { value: fields[keys[index]!], writable: true, enumerable: true, configurable: true });
  weakMapSet(toolErrors, error, record);
  return error;
}

// An async function, so that a failed call's error is created after the await: V8 then appends the
// awaiting program frames ("at async ...") to its stack for free, instead of a stack capture per call.
async function call(capability: string, fn: string, args: unknown, resultMode: unknown): Promise<unknown> {
  capability = StringConstructor(capability);
  fn = StringConstructor(fn);
  const site = settings.callSites === true ? new ErrorConstructor() : undefined;
  const outcome = await dispatch(capability, fn, args, resultMode);
  // A program that patched Promise.prototype can settle this await itself: only records settle() made count.
  if (weakMapGet(outcomes, outcome) !== true)
    throw new TypeErrorConstructor(
      'the sandbox refused a capability result it did not receive from the host (Promise internals were modified)',
    );
  if (outcome.ok) return outcome.payload;
  // The host's error data, read as own properties only: a getter the program put on Object.prototype
  // must not fill in a missing field.
  const payload = outcome.payload;
  const data = own(payload, 'data');
  const field = (name: string, fallback: string): string => {
    const value = own(data, name);
    return typeof value === 'string' ? value : fallback;
  };
  const error = new ErrorConstructor(StringConstructor(own(payload, 'message')));
  const record = ObjectFreeze({
    code: field('code', 'TOOL_FAILED'),
    capability: field('capability', capability),
    function: field('function', fn),
  });
  const details = own(data, 'details');
  const fields: Record<string, unknown> = {
    name: 'ToolCallError',
    code: record.code,
    capability: record.capability,
    function: record.function,
    details,
  };
  const keys = objectKeys(fields);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (fields[key] !== undefined)
      defineProperty(error, key, { value: fields[key], writable: true, enumerable: key !== 'name', configurable: true });
  }
  if (site !== undefined)
    defineProperty(error, 'stack', {
      value: programStack(safe(() => site.stack, '')),
      writable: true,
      enumerable: false,
      configurable: true,
    });
  weakMapSet(toolErrors, error, record);
  throw error;
}
const host = ObjectFreeze({ call });

// The frames of a captured stack below the bootstrap's own (the program's and its modules').
const FRAME_OF_BOOTSTRAP = /\(bootstrap\.js[:)]/;
function programStack(stack: unknown): string {
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

function settle(id: number, ok: boolean, payload: unknown): void {
  const resolve = mapGet(pending, id);
  if (resolve === undefined) return;
  mapDelete(pending, id);
  const record = ObjectFreeze({ ok, payload });
  weakMapSet(outcomes, record, true);
  resolve(record);
}

// The host sends the replies that are ready together: one JSON array of [id, ok, payload] triples.
function deliver(batch: string): void {
  settleBatch(batch);
  if (typeof awaitReplies === 'function' && !awaitingReplies) void awaitRepliesHere();
}
function settleBatch(batch: string): void {
  const replies = jsonParse(batch) as [id: number, ok: boolean, payload: unknown][];
  for (let index = 0; index < replies.length; index++) {
    const reply = replies[index]!;
    settle(reply[0], reply[1], reply[2]);
  }
}

// Where the host gives it (isolated-vm on its own threads), the replies a program waits for are taken
// inside the task that delivered the last ones: once the program's continuations have had their turns
// and calls are still unanswered, the isolate waits for the host's next replies (for a moment only: the
// host answers '' when none came, and at once when a timer is due or the run ends), instead of ending
// its task and being entered again for each reply — the most expensive part of an in-process call.
let awaitingReplies = false;
// Turns of the microtask queue given to the program before waiting: enough for an awaited call's result
// to reach the program's next call (settle → call → proxy → program), so a sequential loop never ends its task.
const TURNS_BEFORE_WAITING = 8;
// Waits inside one delivery, at most: a run whose tools answer fast then ends its task now and then (its
// isolate is entered again by the next delivery), so it never holds an isolate thread for its whole run.
const WAITS_PER_DELIVERY = 64;
async function awaitRepliesHere(): Promise<void> {
  awaitingReplies = true;
  try {
    for (let wait = 0; wait < WAITS_PER_DELIVERY; wait++) {
      for (let turn = 0; turn < TURNS_BEFORE_WAITING; turn++) await undefined;
      if (mapSize(pending) === 0) return;
      const batch = awaitReplies();
      if (typeof batch !== 'string' || batch === '') return;
      settleBatch(batch);
    }
  } finally {
    awaitingReplies = false;
  }
}
