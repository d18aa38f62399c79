/**
 * The host's door for one run's capability calls, in both isolation modes. Whatever the isolate (or a
 * sandbox worker) claims, the host counts the calls, measures the arguments on the bytes it received,
 * parses them once, bounds how many run at once, and answers each call exactly once with JSON text.
 */
import { EncodedJson, toWireError, type CallContext, type CapabilityCallHandler, type ResultMode, type WireError } from '../../core/protocol.js';
import type { RunLimits } from '../sandbox.js';

export interface CallGate {
  /** A call the program made: `argsJson` is untrusted JSON text. Answered through `reply`. */
  submit(id: number, capability: string, fn: string, argsJson: string, resultMode: ResultMode): void;
  /** Calls accepted so far (refused ones not counted). */
  readonly calls: number;
  /** Calls accepted and not yet answered. */
  readonly outstanding: number;
  /** Stops: queued calls are dropped, later replies are not sent. */
  close(): void;
}

export interface CallGateOptions {
  limits: Pick<RunLimits, 'maxCalls' | 'maxArgumentBytes' | 'maxConcurrentCalls'>;
  onCall: CapabilityCallHandler;
  context: CallContext;
  /** Sends one answer: `json` is the result's JSON text, or a wire error's when `ok` is false. */
  reply(id: number, ok: boolean, json: string): void;
}

interface QueuedCall {
  id: number;
  capability: string;
  fn: string;
  args: unknown;
  resultMode: ResultMode;
}

export function createCallGate(options: CallGateOptions): CallGate {
  const { limits, onCall, context } = options;
  const queue: QueuedCall[] = [];
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
      const value = await onCall({ capability: call.capability, function: call.fn, args: call.args, resultMode: call.resultMode }, context);
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

  const pump = (): void => {
    while (!closed && active < limits.maxConcurrentCalls && queue.length > 0) void perform(queue.shift() as QueuedCall);
  };

  return {
    get calls() {
      return calls;
    },
    get outstanding() {
      return active + queue.length;
    },
    submit(id, capability, fn, argsJson, resultMode) {
      if (closed) return;
      const target = { capability, function: fn };
      if (calls >= limits.maxCalls) {
        return refuse(id, {
          code: -32000,
          message: `call to ${capability}.${fn} refused: this run already made its limit of ${limits.maxCalls} capability calls; batch the work or raise limits.maxCalls`,
          data: { code: 'CALL_LIMIT_EXCEEDED', ...target },
        });
      }
      const bytes = Buffer.byteLength(argsJson, 'utf8');
      if (bytes > limits.maxArgumentBytes) {
        return refuse(id, {
          code: -32602,
          message: `arguments of ${capability}.${fn} are ${bytes} bytes of JSON, over the limit of ${limits.maxArgumentBytes} bytes per call (limits.maxArgumentBytes); pass less per call (split the data over several calls) or raise limits.maxArgumentBytes`,
          data: { code: 'INVALID_ARGUMENTS', ...target, details: { maxArgumentBytes: limits.maxArgumentBytes } },
        });
      }
      let args: unknown;
      try {
        args = parseArguments(argsJson);
      } catch {
        return refuse(id, { code: -32602, message: `arguments of ${capability}.${fn} are not JSON`, data: { code: 'INVALID_ARGUMENTS', ...target } });
      }
      calls++;
      queue.push({ id, capability, fn, args, resultMode });
      pump();
    },
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
