import { EncodedJson, ToolCallError, createRedactor, errorMessage, utf8SizeOver, type SecretInput } from '../core/index.js';
import type {
  ApprovalHandler,
  CallAccess,
  BridgeEvent,
  BridgeEventListener,
  CallContext,
  CapabilityCallHandler,
  CapabilityCallParams,
  CapabilitySpec,
  CallSpan,
  CallTracer,
  FunctionSpec,
} from '../core/index.js';
import { defaultApprovalMessage, fillTemplate } from './approval-message.js';
import { assertCallerAllowed } from './callers.js';
import type { Backend, BackendCall, InputRequest } from '../core/index.js';
import { createTextResultObserver } from './inferred-results/observe-text-result.js';
import { createResultRecorder } from './inferred-results/result-recorder.js';
import { createRateLimiter, rateLimitError, type RateLimiter } from './rate-limiter.js';
import { requestApproval } from './request-approval.js';
import { createSchemaCompiler, type SchemaCheck, type SchemaIssue } from './schema-validator.js';

/** Finds the backend serving a capability; `undefined` when none does. */
export type BackendResolver = (capability: CapabilitySpec) => Backend | undefined;

export interface BridgeOptions {
  /** The built capabilities (see `loadBuiltCapabilities`). */
  capabilities: CapabilitySpec[];
  /** Backends by module name, or a function choosing one per capability. */
  backends: Record<string, Backend> | BackendResolver;
  /** Decides calls that require approval. Without one, such calls are denied (headless). */
  approvalHandler?: ApprovalHandler;
  onEvent?: BridgeEventListener;
  /** Largest JSON result a call may return, in bytes. Default 1 MiB. */
  maxResultBytes?: number;
  /** Extra key fragments to redact in events, besides token, password, api_key, secret, … */
  redactKeys?: string[];
  /** The host's secrets (a space passes `space.secrets`: what its sources declare), cut out of errors, events and journaled failures. */
  secrets?: readonly SecretInput[];
  /** Clock for rate limits, in ms. Default `Date.now`. */
  now?: () => number;
  /**
   * Wraps the performing of every approved call (durable runs: a journal answers calls a run
   * already made before its worker died, and records each finished call before the program sees it).
   */
  journal?: CallJournal;
  /**
   * Learn the result types of MCP tools without an output schema from their JSON text results
   * (`FunctionSpec.effects` not `side-effects`), kept in `<outDir>/inferred/` for the next build.
   * Absent: nothing is recorded (drift from an inferred type is still reported).
   */
  learnResultTypes?: { outDir: string };
  /** A span per call (bridge/telemetry/), its `traceparent` passed on to the call's backend. Absent: none. */
  tracer?: CallTracer;
}

/** Performs one call through a journal: `perform` is the backend's call (see `BridgeOptions.journal`). */
export type CallJournal = (call: BackendCall, perform: () => Promise<unknown>) => Promise<unknown>;

/** The host side of every capability call. */
export interface Bridge {
  /** Performs one call and resolves to its value (direct calls: the planner, `callTool`). */
  handle: CapabilityCallHandler;
  /**
   * The same pipeline, resolving to the value's JSON text as the size cap measured it: give this to
   * the runtime as its `CapabilityCallHandler`, so a result is serialized once on its way.
   */
  handleEncoded: (params: CapabilityCallParams, context: CallContext) => Promise<EncodedJson>;
  capabilities(): CapabilitySpec[];
  /** Adds an event listener; returns a function that removes it. */
  on(listener: BridgeEventListener): () => void;
  /** Closes every backend. Calls made afterwards fail with `SERVER_UNAVAILABLE`. */
  close(): Promise<void>;
}

export const DEFAULT_MAX_RESULT_BYTES = 1024 * 1024;

interface Target {
  capability: CapabilitySpec;
  function: FunctionSpec;
}

/** What every call of one function needs and does not change between calls: computed on its first call. */
interface Prepared {
  target: Target;
  subject: string;
  names: { capability: string; function: string };
  /** Compiled checks of its arguments and result (the result's: an output schema or one learned). */
  args?: SchemaCheck;
  result?: SchemaCheck;
}

/**
 * Creates the bridge: one pipeline for every call — resolve the function, validate the arguments,
 * rate limit, approval, backend call, validate the result, size cap — with events for each step.
 *
 * @example
 * const bridge = createBridge({ capabilities, backends: { weather: createInProcessBackend({ weather }) } });
 * await bridge.handle({ capability: 'weather', function: 'getWeather', args: { city: 'Oslo' } }, context);
 */
export function createBridge(options: BridgeOptions): Bridge {
  const capabilities = [...options.capabilities];
  const byModule = new Map(capabilities.map((capability) => [capability.module, capability]));
  const maxResultBytes = options.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const limiter: RateLimiter = createRateLimiter(options.now === undefined ? {} : { now: options.now });
  const compile = createSchemaCompiler();
  /**
   * Per capability: its functions by name and by tool name (the first of each, as listed), and per
   * function what its calls need and do not change — names, compiled checks — built on its first call.
   * Keyed by the capability too: two capabilities may share a function object.
   */
  const indexes = new WeakMap<
    CapabilitySpec,
    { byName: Map<string, FunctionSpec>; byToolName: Map<string, FunctionSpec>; prepared: Map<FunctionSpec, Prepared> }
  >();
  const indexOf = (capability: CapabilitySpec) => {
    let index = indexes.get(capability);
    if (index === undefined) {
      index = { byName: new Map(), byToolName: new Map(), prepared: new Map() };
      for (const fn of capability.functions) {
        if (!index.byName.has(fn.name)) index.byName.set(fn.name, fn);
        if (!index.byToolName.has(fn.toolName)) index.byToolName.set(fn.toolName, fn);
      }
      indexes.set(capability, index);
    }
    return index;
  };
  const listeners = new Set<BridgeEventListener>(options.onEvent === undefined ? [] : [options.onEvent]);
  const usedBackends = new Set<Backend>();
  const secrets = options.secrets ?? [];
  const redact = createRedactor({ keys: options.redactKeys ?? [], secrets });
  let callCount = 0;
  let closed = false;
  const recorder = options.learnResultTypes === undefined ? undefined : createResultRecorder({ outDir: options.learnResultTypes.outDir });
  const textResults = createTextResultObserver({
    ...(recorder === undefined ? {} : { recorder }),
    checkFor: (call, schema) =>
      checkFor('result', { capability: byModule.get(call.capability) as CapabilitySpec, function: call.function }, schema),
    onDrift: (event) => emit({ type: 'result-drift', ...redact(event), timestamp: new Date().toISOString() }),
  });

  const emit = (event: BridgeEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener must not fail the call it observes.
      }
    }
  };

  const prepare = (target: Target): Prepared => {
    const { prepared: byFunction } = indexOf(target.capability);
    let prepared = byFunction.get(target.function);
    if (prepared === undefined) {
      const { capability, function: spec } = target;
      prepared = {
        target,
        subject: `tool "${spec.toolName}" of capability "${capability.module}"`,
        names: { capability: capability.module, function: spec.name },
      };
      byFunction.set(spec, prepared);
    }
    return prepared;
  };

  /** The compiled check of a function's arguments or result, compiled on first use and kept. */
  const checkFor = (kind: 'args' | 'result', target: Target, schema: Record<string, unknown>): SchemaCheck => {
    const prepared = prepare(target);
    return (prepared[kind] ??= compile(schema));
  };

  // A server's error (its stderr, an echoed request) may quote a secret from its env or headers; the
  // program, and so the model, and every event listener get the error with those values cut out
  // (message, details and cause).
  const withoutSecrets = (error: ToolCallError): ToolCallError => redact.error(error);

  const resolveBackend = (capability: CapabilitySpec): Backend | undefined =>
    typeof options.backends === 'function' ? options.backends(capability) : options.backends[capability.module];

  async function dispatch(
    params: CapabilityCallParams,
    context: CallContext,
    callId: string,
    span?: CallSpan,
  ): Promise<{ value: unknown; json: EncodedJson }> {
    const prepared = prepare(resolveTarget(params, context.access));
    const { target, subject, names } = prepared;
    const { capability, function: spec } = target;
    assertCallerAllowed(capability, spec, context.caller ?? 'code');
    if (closed) throw new ToolCallError('SERVER_UNAVAILABLE', `${subject} cannot be called: the bridge is closed`, names);

    const args = validateArguments(prepared, params.args);

    const rateLimit = capability.config.rateLimit;
    if (rateLimit !== undefined) {
      const decision = await limiter.acquire(capability.module, rateLimit, context.signal, context.runId);
      if (!decision.allowed) throw rateLimitError(decision, rateLimit, { subject, names });
    }

    const backend = resolveBackend(capability);
    if (backend === undefined) {
      throw new ToolCallError(
        'SERVER_UNAVAILABLE',
        `${subject} has no backend: register one for module "${capability.module}" in createBridge({ backends })`,
        names,
      );
    }
    usedBackends.add(backend);
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
    // One way to ask the person (or the approval handler): for the call's own approval, and for a server
    // that needs an answer mid-call (an MCP elicitation or input_required).
    const ask = (message: string, requestedSchema?: InputRequest['requestedSchema']) =>
      requestApproval({
        handler: options.approvalHandler,
        request: {
          ...(context.runId === '' ? {} : { runId: context.runId }),
          capability: capability.module,
          function: spec.name,
          params: args,
          message,
          ...(requestedSchema === undefined ? {} : { requestedSchema }),
          timestamp: new Date().toISOString(),
        },
        callId,
        toolName: spec.toolName,
        signal: context.signal,
        ...(context.holdDeadline ? { holdDeadline: context.holdDeadline } : {}),
        emit,
        redactForEvents: redact,
      });
    call.requestInput = (input) => ask(input.message, input.requestedSchema);

    if (spec.requiresApproval === true || capability.config.requiresApproval === true) {
      // The person deciding sees exactly what will run (the program cannot know the host's secrets,
      // so its arguments hold none of them); events and traces get the redacted form.
      const computed = computeApprovalMessage(backend, call);
      const message =
        (computed === undefined ? undefined : redact(computed)) ??
        (spec.approvalMessage === undefined
          ? defaultApprovalMessage(capability.module, spec.name, args)
          : fillTemplate(spec.approvalMessage, args));
      const asked = performance.now();
      try {
        await ask(message);
      } finally {
        span?.approvalWaited(performance.now() - asked);
      }
    }

    let value: unknown;
    try {
      if (options.journal === undefined) {
        value = await backend.call(call);
      } else {
        // A journal keeps what the program saw: a failure reaches it as the program will see it, the
        // host's secrets cut out (the journal is written to a database).
        const performJournaled = async (): Promise<unknown> => {
          try {
            return await backend.call(call);
          } catch (error) {
            throw withoutSecrets(asCallError(error, context, prepared));
          }
        };
        value = await options.journal(call, performJournaled);
      }
    } catch (error) {
      throw asCallError(error, context, prepared);
    }

    if (call.resultMode === 'value' && spec.resultKind === 'mcp-text' && spec.outputSchema === undefined) {
      // Text results teach (and, once learned, are parsed into) an inferred result type; see inferred-results/.
      value = textResults.observe(
        { capability: capability.module, function: spec, callId, ...(context.runId === '' ? {} : { runId: context.runId }) },
        value,
      );
    }
    if (
      call.resultMode === 'value' &&
      spec.outputSchema !== undefined &&
      (spec.resultKind === 'value' || spec.resultKind === 'mcp-structured')
    ) {
      const issues = (prepared.result ??= compile(spec.outputSchema))(value);
      if (issues.length > 0) {
        // After a call that may have changed something, the message must not read as if nothing happened.
        const effect =
          spec.annotations?.readOnlyHint === true || spec.annotations?.idempotentHint === true
            ? undefined
            : `the call was performed${performed === undefined ? '' : ` (${performed})`}`;
        throw new ToolCallError(
          'INVALID_RESULT',
          effect === undefined
            ? `${subject} returned a result that does not match its output schema: ${issues.map(describeResultIssue).join('; ')}`
            : `${subject}: ${effect} but its result did not match the declared type: ${issues.map(describeResultIssue).join('; ')}`,
          names,
          { details: { issues } },
        );
      }
    }

    const json = new EncodedJson(serialize(value, subject, names));
    // Most results are far enough under the cap to need no count.
    const sizeBytes = utf8SizeOver(json.text, maxResultBytes);
    if (sizeBytes !== undefined) {
      throw new ToolCallError(
        'RESULT_TOO_LARGE',
        `${subject} returned ${formatBytes(sizeBytes)}, over the ${formatBytes(maxResultBytes)} cap (maxResultBytes): ask for less (filter, paginate) or raise the cap`,
        names,
        { details: { sizeBytes, maxResultBytes } },
      );
    }
    return { value, json };
  }

  /**
   * Finds the function a call names, within what the run may call: a function outside the run's access
   * is refused, and names outside it are never listed in an error.
   */
  function resolveTarget(params: CapabilityCallParams, access: CallAccess | undefined): Target {
    const visible = (capability: CapabilitySpec): FunctionSpec[] =>
      capability.functions.filter((fn) => access === undefined || access.allows(capability.module, fn.name));
    const found = byModule.get(params.capability);
    // Without access every module is visible; with it, one the run may call some function of.
    const capability =
      access === undefined || (found !== undefined && found.functions.some((fn) => access.allows(found.module, fn.name)))
        ? found
        : undefined;
    if (capability === undefined) {
      const available = [...byModule.values()]
        .filter((candidate) => visible(candidate).length > 0)
        .map((candidate) => candidate.module)
        .sort();
      throw new ToolCallError(
        'UNKNOWN_CAPABILITY',
        `unknown capability "${params.capability}": available modules are ${available.length === 0 ? '(none)' : available.join(', ')}`,
        { capability: params.capability, function: params.function },
        { details: { available } },
      );
    }
    const spec = findFunction(capability, params.function);
    if (spec !== undefined && access !== undefined && !access.allows(capability.module, spec.name)) {
      throw new ToolCallError(
        'ACCESS_DENIED',
        `${capability.module}.${spec.name} is not available to ${access.scope}: call only the functions it was given (see search_tools)`,
        { capability: capability.module, function: spec.name },
      );
    }
    if (spec === undefined) {
      const available = visible(capability).map((candidate) => candidate.name);
      throw new ToolCallError(
        'UNKNOWN_FUNCTION',
        `capability "${capability.module}" has no function "${params.function}": its functions are ${available.length === 0 ? '(none)' : available.join(', ')}`,
        { capability: capability.module, function: params.function },
        { details: { available } },
      );
    }
    return { capability, function: spec };
  }

  /** The function a call names: by its name first, else by its tool's name (the first of each, as listed). */
  function findFunction(capability: CapabilitySpec, name: string): FunctionSpec | undefined {
    const index = indexOf(capability);
    return index.byName.get(name) ?? index.byToolName.get(name);
  }

  function validateArguments(prepared: Prepared, raw: unknown): Record<string, unknown> {
    const args = raw ?? {};
    const { subject, names } = prepared;
    const issues = (prepared.args ??= compile(prepared.target.function.inputSchema))(args);
    if (issues.length > 0) {
      throw new ToolCallError('INVALID_ARGUMENTS', `${subject}: ${issues.map(describeArgumentIssue).join('; ')}`, names, {
        details: { issues },
      });
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new ToolCallError('INVALID_ARGUMENTS', `${subject}: arguments must be an object of named arguments`, names);
    }
    return args as Record<string, unknown>;
  }

  const perform = async (params: CapabilityCallParams, context: CallContext): Promise<{ value: unknown; json: EncodedJson }> => {
    callCount += 1;
    const callId = `call-${callCount}`;
    const started = performance.now();
    const span = options.tracer?.startCall({
      capability: params.capability,
      function: params.function,
      ...(context.runId === '' ? {} : { runId: context.runId }),
      ...(context.caller === undefined ? {} : { caller: context.caller }),
      ...(context.traceparent === undefined ? {} : { parent: context.traceparent }),
    });
    // Redacting and stamping cost microseconds a call; skip them when nobody listens.
    if (listeners.size > 0)
      emit({
        type: 'tool-call-start',
        ...eventBase(callId, context, params),
        args: redact(params.args ?? {}),
        timestamp: new Date().toISOString(),
      });
    try {
      const done = await dispatch(params, context, callId, span);
      span?.end({ ok: true, sizeBytes: done.json.bytes });
      if (listeners.size > 0)
        emit({
          type: 'tool-call-end',
          ...eventBase(callId, context, params),
          ok: true,
          durationMs: performance.now() - started,
          sizeBytes: done.json.bytes,
          timestamp: new Date().toISOString(),
        });
      return done;
    } catch (error) {
      const failure = withoutSecrets(
        error instanceof ToolCallError
          ? error
          : new ToolCallError('TOOL_FAILED', `call to ${params.capability}.${params.function} failed: ${errorMessage(error)}`, params, {
              cause: error,
            }),
      );
      span?.end({ ok: false, code: failure.code });
      if (listeners.size > 0)
        emit({
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
  };

  // `handle` serves direct calls and `handleEncoded` the runtime, so each says who calls unless told.
  const handle: CapabilityCallHandler = async (params, context) =>
    (await perform(params, context.caller === undefined ? { ...context, caller: 'direct' } : context)).value;
  const handleEncoded = async (params: CapabilityCallParams, context: CallContext): Promise<EncodedJson> => {
    return (await perform(params, context.caller === undefined ? { ...context, caller: 'code' } : context)).json;
  };

  return {
    handle,
    handleEncoded,
    capabilities: () => [...capabilities],
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      // What runs taught is written before the space goes; a failed write loses only that lesson.
      await recorder?.flush().catch(() => undefined);
      const backends = typeof options.backends === 'function' ? [...usedBackends] : [...new Set(Object.values(options.backends))];
      await Promise.allSettled(backends.map((backend) => backend.close()));
    },
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

/** What the program sees of a backend's failure. */
function asCallError(error: unknown, context: CallContext, prepared: Prepared): ToolCallError {
  if (error instanceof ToolCallError) return error;
  if (context.signal.aborted)
    return new ToolCallError('CANCELLED', `${prepared.subject} was cancelled: the run ended`, prepared.names, { cause: error });
  return new ToolCallError('TOOL_FAILED', `${prepared.subject} failed: ${errorMessage(error)}`, prepared.names, { cause: error });
}

function computeApprovalMessage(backend: Backend, call: BackendCall): string | undefined {
  try {
    return backend.approvalMessage?.(call);
  } catch {
    // A broken message function must not block the decision; the template or default still works.
    return undefined;
  }
}

function describeArgumentIssue(issue: SchemaIssue): string {
  return issue.path === '' ? `arguments ${issue.message}` : `argument "${issue.path}" ${issue.message}`;
}

function describeResultIssue(issue: SchemaIssue): string {
  const path = issue.path === '' ? 'result' : issue.path.startsWith('[') ? `result${issue.path}` : `result.${issue.path}`;
  return `${path} ${issue.message}`;
}

/** The value's JSON text and its UTF-8 size: the text the sandbox receives, measured once. */
function serialize(value: unknown, subject: string, names: { capability: string; function: string }): string {
  try {
    return JSON.stringify(value ?? null) ?? 'null';
  } catch (error) {
    throw new ToolCallError('INVALID_RESULT', `${subject} returned a value that is not JSON-serialisable: ${errorMessage(error)}`, names, {
      cause: error,
    });
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
