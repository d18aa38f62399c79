import { ToolCallError, type BackendCall, type JsonSchema } from '../../core/index.js';
import type { SessionLimits, SessionStateBacking } from './backing.js';

/** The module: `@capabilities/session`. */
export const SESSION_MODULE = 'session';

/** Longest key (and `list` prefix), in characters. */
export const MAX_SESSION_KEY_CHARS = 256;
/** Longest scope id the host may give a run, in characters. */
export const MAX_SESSION_SCOPE_CHARS = 512;

const KEY = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_SESSION_KEY_CHARS,
  description: 'The key: any text (no control characters), not a path',
} as const satisfies JsonSchema;

const ENTRY = {
  type: 'object',
  properties: {
    key: { type: 'string' },
    bytes: { type: 'integer', description: "UTF-8 bytes of the value's JSON" },
    updatedAt: { type: 'string', description: 'ISO time of the last set' },
    expiresAt: { type: 'string', description: 'ISO time the key expires unless set again' },
  },
  required: ['key', 'bytes', 'updatedAt', 'expiresAt'],
  additionalProperties: false,
} as const satisfies JsonSchema;

/** The functions of `@capabilities/session`, as the compiler sees them (their schemas and descriptions). */
export const SESSION_FUNCTIONS = {
  get: {
    description: 'The value kept under key in this session, or null when there is none (never set, deleted or expired).',
    parameters: { type: 'object', properties: { key: KEY }, required: ['key'], additionalProperties: false },
    returns: { description: 'The JSON value that was set, or null' },
  },
  set: {
    description:
      "Keeps a JSON value under key for later runs of this session (replacing any value it had), for the session's TTL from now. Fails, changing nothing, when the session's quota (bytes or keys) would be exceeded.",
    parameters: {
      type: 'object',
      properties: { key: KEY, value: { description: 'Any JSON value (object, array, string, number, boolean, null)' } },
      required: ['key', 'value'],
      additionalProperties: false,
    },
    returns: {
      type: 'object',
      properties: {
        key: { type: 'string' },
        bytes: { type: 'integer', description: "UTF-8 bytes of the value's JSON" },
        usedBytes: { type: 'integer', description: 'Bytes of keys and values the session holds now' },
        keys: { type: 'integer', description: 'Keys the session holds now' },
        expiresAt: { type: 'string', description: 'ISO time the key expires unless set again' },
      },
      required: ['key', 'bytes', 'usedBytes', 'keys', 'expiresAt'],
      additionalProperties: false,
    },
  },
  remove: {
    description: 'Deletes key from this session (`delete` is a reserved word in JavaScript, hence the name).',
    parameters: { type: 'object', properties: { key: KEY }, required: ['key'], additionalProperties: false },
    returns: {
      type: 'object',
      properties: { deleted: { type: 'boolean', description: 'Whether the key was there' } },
      required: ['deleted'],
      additionalProperties: false,
    },
  },
  list: {
    description: 'The keys this session holds (those starting with prefix, when given), in key order, without their values.',
    parameters: {
      type: 'object',
      properties: { prefix: { type: 'string', maxLength: MAX_SESSION_KEY_CHARS, description: 'Only keys starting with it' } },
      additionalProperties: false,
    },
    returns: { type: 'array', items: ENTRY },
  },
} as const satisfies Record<string, { description: string; parameters: JsonSchema; returns: JsonSchema }>;

export type SessionFunction = keyof typeof SESSION_FUNCTIONS;

/** Where a session-state call comes from, for its errors. */
interface Target {
  capability: string;
  function: string;
}

/**
 * Performs one call of `@capabilities/session` for the scope the host put in the call's context.
 * The program names keys only: the scope is never an argument, and a key is a key (no path, no
 * pattern), so no program reaches another scope's state.
 */
export async function performSessionCall(
  call: BackendCall,
  backing: SessionStateBacking,
  limits: SessionLimits,
  now: () => number = Date.now,
): Promise<unknown> {
  const target: Target = { capability: call.capability.module, function: call.function.name };
  const scope = scopeOf(call.context.session, target);
  const args = call.args;
  const fn = call.function.toolName as SessionFunction;
  switch (fn) {
    case 'get': {
      const json = await backing.get(scope, checkKey(args['key'], target), now());
      return json === undefined ? null : (JSON.parse(json) as unknown);
    }
    case 'set':
      return setValue(backing, scope, checkKey(args['key'], target), args['value'], limits, now(), target);
    case 'remove':
      return { deleted: await backing.delete(scope, checkKey(args['key'], target), now()) };
    case 'list': {
      const prefix = args['prefix'] === undefined ? '' : checkKey(args['prefix'], target, true);
      return backing.list(scope, prefix, now());
    }
    default:
      throw new ToolCallError('UNKNOWN_FUNCTION', `session has no function "${String(fn)}": get, set, remove, list`, target);
  }
}

async function setValue(
  backing: SessionStateBacking,
  scope: string,
  key: string,
  value: unknown,
  limits: SessionLimits,
  now: number,
  target: Target,
): Promise<unknown> {
  checkJson(value, 'value', target);
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  const outcome = await backing.set(scope, key, json, limits, now);
  if (!outcome.stored) {
    const message =
      outcome.limit === 'maxKeys'
        ? `session: "${key}" would be key ${outcome.keys + 1} of this session, over its limit of ${limits.maxKeys} keys (session.maxKeys): remove keys it no longer needs`
        : `session: "${key}" (${bytes} bytes of JSON) would bring this session over its limit of ${limits.maxBytes} bytes of keys and values (session.maxBytes; it holds ${outcome.usedBytes}): keep less, or remove keys it no longer needs`;
    throw new ToolCallError('FORBIDDEN', message, target, { details: { limit: outcome.limit } });
  }
  return { key, bytes, usedBytes: outcome.usedBytes, keys: outcome.keys, expiresAt: outcome.expiresAt };
}

/** The run's scope, or a clear refusal for a run the host gave none. */
function scopeOf(session: string | undefined, target: Target): string {
  if (session === undefined || session === '') {
    throw new ToolCallError(
      'FORBIDDEN',
      'session: this run has no session, so there is no state to keep between runs. The host gives a run one: runCode/space.run with { session: "<id>" }, an MCP session of serve, a planner task, an agent session',
      target,
    );
  }
  if (session.length > MAX_SESSION_SCOPE_CHARS) {
    throw new ToolCallError('FORBIDDEN', `session: the run's session id is longer than ${MAX_SESSION_SCOPE_CHARS} characters`, target);
  }
  return session;
}

/** A key (or a prefix, which may be empty): text without control characters, at most MAX_SESSION_KEY_CHARS. */
function checkKey(value: unknown, target: Target, prefix = false): string {
  const what = prefix ? 'prefix' : 'key';
  if (typeof value !== 'string') throw new ToolCallError('INVALID_ARGUMENTS', `session: ${what} must be a string`, target);
  if (!prefix && value.length === 0) throw new ToolCallError('INVALID_ARGUMENTS', 'session: key must not be empty', target);
  if (value.length > MAX_SESSION_KEY_CHARS) {
    throw new ToolCallError(
      'INVALID_ARGUMENTS',
      `session: ${what} is ${value.length} characters, more than ${MAX_SESSION_KEY_CHARS}`,
      target,
    );
  }
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f]/.exec(value);
  if (control) {
    throw new ToolCallError(
      'INVALID_ARGUMENTS',
      `session: ${what} has a control character (U+${control[0].charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}) at index ${control.index}`,
      target,
    );
  }
  if (/[\ud800-\udfff]/u.test(value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
    throw new ToolCallError('INVALID_ARGUMENTS', `session: ${what} has a lone surrogate (not valid UTF-8 text)`, target);
  }
  return value;
}

/**
 * Refuses what is not JSON data (a direct call may pass any JavaScript value; a program's arguments
 * arrive as JSON already): undefined, functions, symbols, bigints, non-finite numbers, class instances.
 */
function checkJson(value: unknown, at: string, target: Target, depth = 0): void {
  const refuse = (what: string): never => {
    throw new ToolCallError('INVALID_ARGUMENTS', `session: ${at} is ${what}, not JSON data`, target);
  };
  if (depth > 64) refuse('nested more than 64 levels deep');
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) refuse(String(value));
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkJson(item, `${at}[${index}]`, target, depth + 1));
    return;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) refuse(`a ${(value as object).constructor?.name ?? 'class'} instance`);
    for (const [key, item] of Object.entries(value)) checkJson(item, `${at}.${key}`, target, depth + 1);
    return;
  }
  refuse(typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`);
}
