import { ToolCallError, createRedactor, errorMessage } from '../core/index.js';
import type {
  Backend,
  BackendCall,
  BridgeEvent,
  BridgeEventListener,
  CallContext,
  CallSpan,
  CapabilityCallParams,
  CapabilitySpec,
  EncodedJson,
  InputRequest,
} from '../core/index.js';
import { defaultApprovalMessage, fillTemplate } from './approval-message.js';
import { DEFAULT_MAX_RESULT_BYTES, type BridgeOptions } from './bridge.js';
import { asCallError, checkResult, encodeResult, validateArguments } from './call-checks.js';
import { CallTargets, type PreparedFunction } from './call-targets.js';
import { assertCallerAllowed } from './callers.js';
import { createTextResultObserver, type TextResultObserver } from './inferred-results/observe-text-result.js';
import { createResultRecorder, type ResultRecorder } from './inferred-results/result-recorder.js';
import { createRateLimiter, rateLimitError, type RateLimiter } from './rate-limiter.js';
import { requestApproval } from './request-approval.js';
import { createSchemaCompiler } from './schema-validator.js';

/** A performed call: its value, and the value's JSON text as the size cap measured it. */
export interface PerformedCall {
  value: unknown;
  json: EncodedJson;
}

/**
 * The bridge's state and its one pipeline for every call — resolve the function, validate the
 * arguments, rate limit, approval, backend call, validate the result, size cap — with events for each
 * step. `createBridge` wraps it in the `Bridge` interface.
 */
export class CallPipeline {
  readonly #options: BridgeOptions;
  readonly #capabilities: CapabilitySpec[];
  readonly #targets: CallTargets;
  readonly #maxResultBytes: number;
  readonly #limiter: RateLimiter;
  readonly #compile = createSchemaCompiler();
  readonly #listeners: Set<BridgeEventListener>;
  /** Backends that served a call (a resolver's backends are known only by their calls): closed with the bridge. */
  readonly #usedBackends = new Set<Backend>();
  readonly #redact: ReturnType<typeof createRedactor>;
  readonly #recorder: ResultRecorder | undefined;
  readonly #textResults: TextResultObserver;
  #callCount = 0;
  #closed = false;

  constructor(options: BridgeOptions) {
    this.#options = options;
    this.#capabilities = [...options.capabilities];
    this.#targets = new CallTargets(this.#capabilities);
    this.#maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
    this.#limiter = createRateLimiter(options.now === undefined ? {} : { now: options.now });
    this.#listeners = new Set(options.onEvent === undefined ? [] : [options.onEvent]);
    this.#redact = createRedactor({ keys: options.redactKeys ?? [], secrets: options.secrets ?? [] });
    this.#recorder = options.learnResultTypes === undefined ? undefined : createResultRecorder({ outDir: options.learnResultTypes.outDir });
    this.#textResults = createTextResultObserver({
      ...(this.#recorder === undefined ? {} : { recorder: this.#recorder }),
      checkFor: (call, schema) => {
        const prepared = this.#targets.prepare(this.#targets.capability(call.capability) as CapabilitySpec, call.function);
        return (prepared.result ??= this.#compile(schema));
      },
      onDrift: (event) => this.#emit({ type: 'result-drift', ...this.#redact(event), timestamp: new Date().toISOString() }),
    });
  }

  capabilities(): CapabilitySpec[] {
    return [...this.#capabilities];
  }

  /** Adds an event listener; returns a function that removes it. */
  on(listener: BridgeEventListener): () => boolean {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Performs one call: numbers it, traces it, tells listeners when it starts and ends, and turns any
   * failure into the `ToolCallError` the program sees, with the host's secrets cut out.
   */
  async perform(params: CapabilityCallParams, context: CallContext): Promise<PerformedCall> {
    this.#callCount += 1;
    const callId = `call-${this.#callCount}`;
    const started = performance.now();
    const span = this.#options.tracer?.startCall({
      capability: params.capability,
      function: params.function,
      ...(context.runId === '' ? {} : { runId: context.runId }),
      ...(context.caller === undefined ? {} : { caller: context.caller }),
      ...(context.traceparent === undefined ? {} : { parent: context.traceparent }),
    });
    // Redacting and stamping cost microseconds a call; skip them when nobody listens.
    if (this.#listeners.size > 0)
      this.#emit({
        type: 'tool-call-start',
        ...eventBase(callId, context, params),
        args: this.#redact(params.args ?? {}),
        timestamp: new Date().toISOString(),
      });
    try {
      const done = await this.#dispatch(params, context, callId, span);
      span?.end({ ok: true, sizeBytes: done.json.bytes });
      if (this.#listeners.size > 0)
        this.#emit({
          type: 'tool-call-end',
          ...eventBase(callId, context, params),
          ok: true,
          durationMs: performance.now() - started,
          sizeBytes: done.json.bytes,
          timestamp: new Date().toISOString(),
        });
      return done;
    } catch (error) {
      const failure = this.#withoutSecrets(
        error instanceof ToolCallError
          ? error
          : new ToolCallError('TOOL_FAILED', `call to ${params.capability}.${params.function} failed: ${errorMessage(error)}`, params, {
              cause: error,
            }),
      );
      span?.end({ ok: false, code: failure.code });
      if (this.#listeners.size > 0)
        this.#emit({
          type: 'tool-call-end',
          ...eventBase(callId, context, params),
          ok: false,
          durationMs: performance.now() - started,
          sizeBytes: 0,
          error: { code: failure.code, message: failure.message },
          timestamp: new Date().toISOString(),
        });
      throw failure;
    }
  }

  /** Closes every backend, after writing what runs taught about result types. Later calls fail with `SERVER_UNAVAILABLE`. */
  async close(): Promise<void> {
    this.#closed = true;
    // What runs taught is written before the space goes; a failed write loses only that lesson.
    await this.#recorder?.flush().catch(() => undefined);
    const { backends } = this.#options;
    const toClose = typeof backends === 'function' ? [...this.#usedBackends] : [...new Set(Object.values(backends))];
    await Promise.allSettled(toClose.map((backend) => backend.close()));
  }

  /** The pipeline proper, from the function a call names to its checked, encoded result. */
  async #dispatch(params: CapabilityCallParams, context: CallContext, callId: string, span?: CallSpan): Promise<PerformedCall> {
    const prepared = this.#targets.resolve(params, context.access);
    const { target, subject, names } = prepared;
    const { capability, function: spec } = target;
    assertCallerAllowed(capability, spec, context.caller ?? 'code');
    if (this.#closed) throw new ToolCallError('SERVER_UNAVAILABLE', `${subject} cannot be called: the bridge is closed`, names);

    const args = validateArguments(prepared, params.args, this.#compile);

    const rateLimit = capability.config.rateLimit;
    if (rateLimit !== undefined) {
      const decision = await this.#limiter.acquire(capability.module, rateLimit, context.signal, context.runId);
      if (!decision.allowed) throw rateLimitError(decision, rateLimit, { subject, names });
    }

    const backend = this.#backendOf(capability);
    if (backend === undefined) {
      throw new ToolCallError(
        'SERVER_UNAVAILABLE',
        `${subject} has no backend: register one for module "${capability.module}" in createBridge({ backends })`,
        names,
      );
    }
    this.#usedBackends.add(backend);
    let performed: string | undefined;
    const call: BackendCall = {
      capability,
      function: spec,
      args,
      resultMode: params.resultMode ?? 'value',
      callId,
      context,
      onPerformed: (outcome) => void (performed = outcome),
    };
    if (span?.traceparent !== undefined) call.traceparent = span.traceparent;
    // A server that needs an answer mid-call (an MCP elicitation or input_required) asks as the call's approval does.
    call.requestInput = (input) => this.#ask(call, input.message, input.requestedSchema);

    if (spec.requiresApproval === true || capability.config.requiresApproval === true) {
      const message = this.#approvalMessage(backend, call);
      const asked = performance.now();
      try {
        await this.#ask(call, message);
      } finally {
        span?.approvalWaited(performance.now() - asked);
      }
    }

    let value: unknown;
    try {
      const journal = this.#options.journal;
      if (journal === undefined) {
        value = await backend.call(call);
      } else {
        // A journal keeps what the program saw: a failure reaches it as the program will see it, the
        // host's secrets cut out (the journal is written to a database).
        const performJournaled = async (): Promise<unknown> => {
          try {
            return await backend.call(call);
          } catch (error) {
            throw this.#withoutSecrets(asCallError(error, context, prepared));
          }
        };
        value = await journal(call, performJournaled);
      }
    } catch (error) {
      throw asCallError(error, context, prepared);
    }
    return this.#finish(prepared, call, value, performed);
  }

  /** The value a call resolves to, checked and encoded: learned text results parsed, the output schema checked, the size capped. */
  #finish(prepared: PreparedFunction, call: BackendCall, returned: unknown, performed: string | undefined): PerformedCall {
    const spec = call.function;
    let value = returned;
    if (call.resultMode === 'value' && spec.resultKind === 'mcp-text' && spec.outputSchema === undefined) {
      // Text results teach (and, once learned, are parsed into) an inferred result type; see inferred-results/.
      const { runId } = call.context;
      value = this.#textResults.observe(
        { capability: call.capability.module, function: spec, callId: call.callId, ...(runId === '' ? {} : { runId }) },
        value,
      );
    }
    if (call.resultMode === 'value' && (spec.resultKind === 'value' || spec.resultKind === 'mcp-structured')) {
      checkResult(prepared, value, performed, this.#compile);
    } else if (call.resultMode === 'full' && spec.resultKind === 'mcp-structured' && isObject(value) && value.isError !== true) {
      // The whole MCP result: its structuredContent, when there is one, is what the output schema describes.
      if (value.structuredContent !== undefined) checkResult(prepared, value.structuredContent, performed, this.#compile);
    }
    return { value, json: encodeResult(value, prepared, this.#maxResultBytes) };
  }

  /**
   * The message of the approval a function requires. The person deciding sees exactly what will run
   * (the program cannot know the host's secrets, so its arguments hold none of them); events and traces
   * get the redacted form.
   */
  #approvalMessage(backend: Backend, call: BackendCall): string {
    const { capability, function: spec, args } = call;
    const computed = computeApprovalMessage(backend, call);
    return (
      (computed === undefined ? undefined : this.#redact(computed)) ??
      (spec.approvalMessage === undefined
        ? defaultApprovalMessage(capability.module, spec.name, args)
        : fillTemplate(spec.approvalMessage, args))
    );
  }

  /** One way to ask the person (or the approval handler): for the call's own approval, and for a server that needs an answer mid-call. */
  #ask(
    call: BackendCall,
    message: string,
    requestedSchema?: InputRequest['requestedSchema'],
  ): Promise<{ content?: Record<string, unknown> }> {
    const { context } = call;
    return requestApproval({
      handler: this.#options.approvalHandler,
      request: {
        ...(context.runId === '' ? {} : { runId: context.runId }),
        capability: call.capability.module,
        function: call.function.name,
        params: call.args,
        message,
        ...(requestedSchema === undefined ? {} : { requestedSchema }),
        timestamp: new Date().toISOString(),
      },
      callId: call.callId,
      toolName: call.function.toolName,
      signal: context.signal,
      ...(context.holdDeadline ? { holdDeadline: context.holdDeadline } : {}),
      emit: this.#emit,
      redactForEvents: this.#redact,
    });
  }

  #backendOf(capability: CapabilitySpec): Backend | undefined {
    const { backends } = this.#options;
    return typeof backends === 'function' ? backends(capability) : backends[capability.module];
  }

  // A server's error (its stderr, an echoed request) may quote a secret from its env or headers; the
  // program, and so the model, and every event listener get the error with those values cut out
  // (message, details and cause).
  #withoutSecrets(error: ToolCallError): ToolCallError {
    return this.#redact.error(error);
  }

  readonly #emit = (event: BridgeEvent): void => {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener must not fail the call it observes.
      }
    }
  };
}

/** The fields every event of one call carries: built only when someone listens. */
function eventBase(
  callId: string,
  context: CallContext,
  params: CapabilityCallParams,
): { callId: string; runId?: string; capability: string; function: string } {
  return { callId, ...(context.runId === '' ? {} : { runId: context.runId }), capability: params.capability, function: params.function };
}

function computeApprovalMessage(backend: Backend, call: BackendCall): string | undefined {
  try {
    return backend.approvalMessage?.(call);
  } catch {
    // A broken message function must not block the decision; the template or default still works.
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
