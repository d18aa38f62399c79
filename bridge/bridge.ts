import type { EncodedJson, SecretInput } from '../core/index.js';
import type {
  ApprovalHandler,
  Backend,
  BackendCall,
  BridgeEventListener,
  CallContext,
  CallTracer,
  CapabilityCallHandler,
  CapabilityCallParams,
  CapabilitySpec,
} from '../core/index.js';

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
