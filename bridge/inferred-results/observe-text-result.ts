import type { FunctionSpec, JsonSchema, ResultDriftEvent } from '../../core/index.js';
import type { SchemaCheck, SchemaIssue } from '../schema-validator.js';
import type { ResultRecorder } from './result-recorder.js';

/** The longest text result that is parsed to learn from, in bytes: a bigger one is passed on as it is. */
export const MAX_OBSERVED_TEXT_BYTES = 256 * 1024;

/** At most this many issues are named in a drift event. */
const MAX_DRIFT_ISSUES = 5;

export interface TextResultCall {
  capability: string;
  function: FunctionSpec;
  callId: string;
  runId?: string;
}

export interface TextResultObserver {
  /**
   * The value of a successful `value`-mode call of an `mcp-text` function without an output schema:
   * the text as it is, or, for a function with an inferred result type, the text parsed as JSON (the
   * text itself when it is not JSON any more: drift). JSON results of tools not marked as having side
   * effects are recorded, widening their inferred type.
   */
  observe(call: TextResultCall, value: unknown): unknown;
}

export interface TextResultObserverOptions {
  /** Absent: nothing is recorded (drift is still reported). */
  recorder?: ResultRecorder;
  /** The check of a function's inferred schema (compiled once per function by the caller). */
  checkFor(call: TextResultCall, schema: JsonSchema): SchemaCheck;
  onDrift(event: Omit<ResultDriftEvent, 'type' | 'timestamp'>): void;
}

export function createTextResultObserver(options: TextResultObserverOptions): TextResultObserver {
  /** Whether the value was recorded (never for a tool marked as having side effects). */
  const record = (call: TextResultCall, value: unknown): boolean => {
    if (options.recorder === undefined || call.function.effects === 'side-effects') return false;
    options.recorder.record(call.capability, call.function.toolName, value, 'run');
    return true;
  };

  return {
    observe(call, value) {
      if (typeof value !== 'string') return value;
      const inferred = call.function.inferredResult;
      if (inferred === undefined) {
        // Only objects and arrays teach a type worth declaring; `"ok"` or `42` as text may be prose.
        const parsed = parseBounded(value);
        if (parsed !== undefined && typeof parsed.value === 'object' && parsed.value !== null) record(call, parsed.value);
        return value;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        drift(call, [{ path: '', message: 'is not JSON text any more' }], 'the call succeeded with the text', false);
        return value;
      }
      const recorded = Buffer.byteLength(value) <= MAX_OBSERVED_TEXT_BYTES && record(call, parsed);
      const issues = checkInferred(call, inferred.schema, parsed);
      if (issues.length > 0) drift(call, issues, 'the call succeeded with the value', recorded);
      return parsed;
    },
  };

  /** A store edited by hand may hold a schema ajv refuses: that is reported like drift, never a failed call. */
  function checkInferred(call: TextResultCall, schema: JsonSchema, value: unknown): SchemaIssue[] {
    try {
      return options.checkFor(call, schema)(value);
    } catch (error) {
      return [
        {
          path: '',
          message: `cannot be checked: its inferred schema is not usable (${error instanceof Error ? error.message : String(error)})`,
        },
      ];
    }
  }

  function drift(call: TextResultCall, issues: SchemaIssue[], outcome: string, recorded: boolean): void {
    const shown = issues.slice(0, MAX_DRIFT_ISSUES);
    const what = shown.map((issue) => `${issue.path === '' ? 'result' : `result.${issue.path}`} ${issue.message}`).join('; ');
    const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : '';
    const widened = recorded
      ? 'its stored type was widened: run "agent-spaces capabilities build" to declare it'
      : 'its stored type was not changed';
    options.onDrift({
      callId: call.callId,
      ...(call.runId === undefined ? {} : { runId: call.runId }),
      capability: call.capability,
      function: call.function.name,
      issues: shown,
      message: `${call.capability}.${call.function.name} returned a result unlike its inferred type (${what}${more}); ${outcome}; ${widened}`,
    });
  }
}

function parseBounded(text: string): { value: unknown } | undefined {
  if (Buffer.byteLength(text) > MAX_OBSERVED_TEXT_BYTES) return undefined;
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return undefined; // not worth a parse attempt
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}
