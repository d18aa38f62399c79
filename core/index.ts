export type { JsonSchema, JsonSchemaOrBoolean } from './json-schema.js';
export type { InferredResult, InferredResultEntry, InferredResultSource, InferredResultsFile } from './inferred-result.js';
export { INFERRED_RESULTS_DIR, MAX_INFERRED_FILE_BYTES, inferredResultsFile, parseInferredResults } from './inferred-result.js';
export { MAX_WRITTEN_SCHEMA_CHARS, isJsonSchemaObject, jsonWrittenSize } from './json-schema.js';
export { keepAliveUntil } from './keep-alive.js';
export { canonicalJson } from './canonical-json.js';
export { untilAborted } from './until-aborted.js';
export { writeFileAtomic, type WriteFileAtomicOptions } from './write-file-atomic.js';
export { closestKey, editDistance } from './edit-distance.js';
export { readBodyUpTo } from './read-body.js';
export { readSmallFile } from './read-small-file.js';
export { MAX_REDIRECTS, isCredentialHeader, isHostAllowed } from './http-policy.js';
export type {
  CapabilityManifest,
  CapabilityOrigin,
  CapabilitySpec,
  CapabilityConfig,
  CompileWarning,
  FunctionSpec,
  RateLimit,
  RatePeriod,
  ResultKind,
  ToolAnnotations,
} from './manifest.js';
export type { CallerKind, ToolCallers } from './callers.js';
export type { CallSpan, CallTracer } from './tracing.js';
export { parseTraceparent } from './tracing.js';
export { TOOL_CALLERS, callerAllowed, describeCallers } from './callers.js';
export { BUILD_LAYOUT, CAPABILITY_PREFIX, SANDBOX_HOST_GLOBAL } from './manifest.js';
export { AgentSpacesError, ConfigError, CompileError, SandboxError, SandboxTimeoutError, ToolCallError, errorMessage } from './errors.js';
export type { ConfigIssue, ToolCallErrorCode } from './errors.js';
export type {
  CallContext,
  CapabilityCallHandler,
  CapabilityCallParams,
  ResultMode,
  WireError,
  WireErrorData,
  CallAccess,
} from './protocol.js';
export { EncodedJson, WIRE_ERROR_CODES, accessFromIds, toWireError } from './protocol.js';
export { utf8SizeOver } from './utf8-size.js';
export type { Diagnostic, LogLevel, RunError, RunLog, RunResult } from './run-result.js';
export type {
  ApprovalDecidedEvent,
  ApprovalDecision,
  ApprovalHandler,
  ApprovalRequest,
  ApprovalRequiredEvent,
  BridgeEvent,
  ResultDriftEvent,
  BridgeEventListener,
  ToolCallEndEvent,
  ToolCallStartEvent,
} from './events.js';
export type {
  AnyFunctionDefinition,
  FunctionDefinition,
  InferSchema,
  SchemaInput,
  ToolCallContext,
  ToolDefinition,
  ToolDefinitionInput,
} from './define-tool.js';
export { TOOL_DEFINITION, defineFunction, defineTool, isToolDefinition } from './define-tool.js';
export type { Backend, BackendCall, CallProgress, InputAnswer, InputRequest } from './backend.js';
export { createInProcessBackend } from './in-process-backend.js';
export type { RawCapability, RawFunction, SourceFailure } from './raw-capability.js';
export type {
  CapabilitySource,
  ConnectContext,
  DiscoverContext,
  Discovery,
  SchemaNames,
  SourceCallers,
  SourceKindName,
} from './capability-source.js';
export { DEFAULT_SCHEMA_NAMES, inputFilesOf, kindsOf, sourceOfKind, titleOf } from './capability-source.js';
export { sourceLabel } from './raw-capability.js';
export {
  assignFunctionNames,
  assignModuleNames,
  isSafeIdentifier,
  namespaceBinding,
  splitWords,
  toFunctionName,
  toModuleName,
  toNamespaceName,
  toTypeName,
} from './names.js';
export type { FunctionNameAssignment, FunctionNameWarning, ModuleNameAssignment, ModuleNameWarning, NamespaceBinding } from './names.js';
export type { Secret } from './secrets.js';
export {
  CREDENTIAL_SHAPES,
  MIN_SECRET_LENGTH,
  looksLikeCredential,
  namesSecret,
  secretsOfArgs,
  secretsOfEnv,
  secretsOfHeaders,
  secretsOfUrl,
} from './secrets.js';
export type { RedactOptions, Redactor, SecretInput } from './redact.js';
export {
  DEFAULT_SECRET_KEYS,
  REDACTED,
  createRedactor,
  isSecretKey,
  redact,
  redactText,
  redactToolCallError,
  redactionMarker,
} from './redact.js';
export type { EngineChoice, EngineName, EngineRegistry } from './engine-choice.js';
export { parseSandboxModules, type SandboxModuleEntry, type SandboxModulesManifest } from './sandbox-modules.js';
