/**
 * The host's door for one run's capability calls, in both isolation modes. Whatever the isolate (or a
 * sandbox worker) claims, the host counts the calls, measures the arguments on the bytes it received,
 * parses them once, bounds how many run at once, and answers each call exactly once with JSON text.
 */
import { ToolCallError } from '../../core/errors.js';
import {
  EncodedJson,
  WIRE_ERROR_CODES,
  toWireError,
  type CallContext,
  type CapabilityCallHandler,
  type ResultMode,
  type WireError,
} from '../../core/protocol.js';
import type { RunLimits } from '../sandbox.js';

export interface CallGate {
  /**
   * A call the program made: `argsJson` is untrusted JSON text, `argsBytes` its UTF-8 size when the
   * caller counted it already (the bytes of a worker's frame). Answered through `reply`.
   */
  submit(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode, argsBytes?: number): void;
  /** Calls accepted so far (refused ones not counted). */
  readonly calls: number;
  /** Calls accepted and not yet answered. */
  readonly outstanding: number;
  /** Starts the calls that wait, as far as the limits and `mayStart` allow (e.g. once the replies drained). */
  resume(): void;
  /** Stops: queued calls are dropped, later replies are not sent. */
  close(): void;
}

export interface CallGateOptions {
  limits: Pick<RunLimits, 'maxCalls' | 'maxArgumentBytes' | 'maxConcurrentCalls'>;
  onCall: CapabilityCallHandler;
  context: CallContext;
  /** Sends one answer: `json` is the result's JSON text, or a wire error's when `ok` is false. */
  reply(id: number, ok: boolean, json: string): void;
  /**
   * Whether a waiting call may start now (default: always). A worker that does not read its replies
   * (a program computing, a hostile worker) would otherwise have every result of the run buffered on
   * the host; calls wait instead, and {@link CallGate.resume} starts them again.
   */
  mayStart?: () => boolean;
}

interface QueuedCall {
  id: number;
  capability: string;
  fn: string;
  /** Kept as text while the call waits: parsed when it starts, so waiting calls hold one copy each. */
  argsJson: string;
  bytes: number;
  resultMode: ResultMode;
}

/** The refusal of arguments past `maxArgumentBytes` (the gate's, and the isolate runner's before it sends). */
export function argumentLimitError(capability: string, fn: string, bytes: number | string, maxArgumentBytes: number): WireError {
  return {
    code: WIRE_ERROR_CODES.invalidParams,
    message: `arguments of ${capability}.${fn} are ${bytes} bytes of JSON, over the limit of ${maxArgumentBytes} bytes per call (sandbox.maxArgumentBytes); pass less per call (split the data over several calls) or raise sandbox.maxArgumentBytes in the config`,
    data: { code: 'INVALID_ARGUMENTS', capability, function: fn, details: { maxArgumentBytes } },
  };
}

/** The refusal of a call past `maxCalls` (the gate's, and the bootstrap's template for its own count). */
export function callLimitError(capability: string, fn: string, maxCalls: number): WireError {
  return {
    code: WIRE_ERROR_CODES.toolCall,
    message: `call to ${capability}.${fn} refused: this run already made its limit of ${maxCalls} capability calls; batch the work or raise sandbox.maxCalls in the config`,
    data: { code: 'CALL_LIMIT_EXCEEDED', capability, function: fn },
  };
}

/** The refusal of a call whose capability or function name is longer than a frame's header takes. */
export function nameLimitError(length: number, limit: number): WireError {
  return {
    code: WIRE_ERROR_CODES.invalidParams,
    message: `call refused: a capability or function name of ${length} characters (limit ${limit})`,
    data: { code: 'INVALID_ARGUMENTS' },
  };
}

/** The refusal of a call while too many argument bytes of the run wait (on the host, or unanswered in the worker). */
export function queuedArgumentsError(capability: string, fn: string, waiting: string, limit: number): WireError {
  return {
    code: WIRE_ERROR_CODES.toolCall,
    message: `call to ${capability}.${fn} refused: this run already has ${waiting} (limit ${limit}); await some calls before making more`,
    data: { code: 'CALL_LIMIT_EXCEEDED', capability, function: fn },
  };
}

/**
 * Argument bytes one run may have waiting for a free call slot; a program that queues more is refused
 * until some of its calls finish (without it, 1,000 queued 1 MiB calls would hold 1 GiB on the host).
 */
export function maxQueuedArgumentBytes(limits: Pick<RunLimits, 'maxArgumentBytes'>): number {
  return Math.max(16 * 1024 * 1024, 4 * limits.maxArgumentBytes);
}

export function createCallGate(options: CallGateOptions): CallGate {
  const { limits, onCall, context } = options;
  const queue: QueuedCall[] = [];
  const maxQueuedBytes = maxQueuedArgumentBytes(limits);
  let queuedBytes = 0;
  let calls = 0;
  let active = 0;
  let closed = false;

  const refuse = (id: number, error: WireError): void => {
    if (!closed) options.reply(id, false, JSON.stringify(error));
  };

  const perform = async (call: QueuedCall): Promise<void> => {
    active++;
    let ok = true;
    let json: string;
    try {
      let args: unknown;
      try {
        args = parseArguments(call.argsJson);
      } catch {
        throw new ToolCallError('INVALID_ARGUMENTS', `arguments of ${call.capability}.${call.fn} are not JSON`, {
          capability: call.capability,
          function: call.fn,
        });
      }
      const value = await onCall({ capability: call.capability, function: call.fn, args, resultMode: call.resultMode }, context);
      json = value instanceof EncodedJson ? value.text : encode(value, call);
    } catch (error) {
      ok = false;
      json = JSON.stringify(toWireError(error));
    }
    active--;
    if (closed) return;
    options.reply(call.id, ok, json);
    pump();
  };

  const mayStart = options.mayStart ?? ((): boolean => true);
  const pump = (): void => {
    while (!closed && active < limits.maxConcurrentCalls && queue.length > 0 && mayStart()) {
      const next = queue.shift() as QueuedCall;
      queuedBytes -= next.bytes;
      void perform(next);
    }
  };

  return {
    get calls() {
      return calls;
    },
    get outstanding() {
      return active + queue.length;
    },
    submit(id, capability, fn, argsJson, resultMode, argsBytes) {
      if (closed) return;
      if (calls >= limits.maxCalls) return refuse(id, callLimitError(capability, fn, limits.maxCalls));
      const bytes = argsBytes ?? Buffer.byteLength(argsJson, 'utf8');
      if (bytes > limits.maxArgumentBytes) return refuse(id, argumentLimitError(capability, fn, bytes, limits.maxArgumentBytes));
      const waits = active >= limits.maxConcurrentCalls || queue.length > 0 || !mayStart();
      if (waits && queuedBytes + bytes > maxQueuedBytes)
        return refuse(
          id,
          queuedArgumentsError(capability, fn, `${queuedBytes} bytes of arguments waiting for a free call slot`, maxQueuedBytes),
        );
      calls++;
      queuedBytes += bytes;
      queue.push({ id, capability, fn, argsJson, bytes, resultMode });
      pump();
    },
    resume: () => pump(),
    close() {
      closed = true;
      queue.length = 0;
    },
  };
}

/**
 * Parses a program's arguments. JSON.parse makes `"__proto__"` an own key, but a handler that copies
 * the object with Object.assign or a `for…in` merge would turn it into the prototype — and read
 * fields the approval never showed. Such keys are dropped (checked on the text first: rare and cheap).
 */
function parseArguments(json: string): unknown {
  if (!json.includes('"__proto__"')) return JSON.parse(json);
  return JSON.parse(json, (key, value: unknown) => (key === '__proto__' ? undefined : value));
}

function encode(value: unknown, call: QueuedCall): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value ?? null);
  } catch (error) {
    throw new Error(`the result of ${call.capability}.${call.fn} is not JSON-serialisable: ${String(error)}`);
  }
  return json ?? 'null';
}
