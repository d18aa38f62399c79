/**
 * `defineTool()`: a capability written in TypeScript. Parameters and results may be JSON Schema or
 * zod; the compiler turns them into the same declarations as any other source, and the bridge calls
 * `handler` on the host with validated arguments.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { z } from 'zod';
import type { ToolCallers } from './callers.js';
import type { CapabilityConfig } from './manifest.js';

/** A schema in either of the accepted notations. */
export type SchemaInput = JSONSchema | z.ZodType;

/**
 * What `returns` may be: a schema, or the seed form `{} as Trip[]` — the result type written in
 * TypeScript, which the compiler reads from the source (an empty object at run time).
 */
export type ReturnsInput = SchemaInput | object;

/** The TypeScript type a schema describes (`unknown` where it cannot be derived). */
export type InferSchema<S> = [S] extends [z.ZodType]
  ? z.output<S>
  : [S] extends [boolean]
    ? unknown
    : [S] extends [JSONSchema]
      ? FromSchema<S>
      : unknown;

export interface ToolCallContext {
  runId: string;
  capability: string;
  function: string;
  /** Aborted when the run that made the call ends. */
  signal: AbortSignal;
}

export interface FunctionDefinition<P extends SchemaInput = SchemaInput, R extends ReturnsInput = SchemaInput> {
  description?: string;
  /** An object schema (JSON Schema `{type: "object", ...}` or `z.object(...)`). Omitted: no parameters. */
  parameters?: P;
  /** What the handler resolves to (a schema, or `{} as Trip[]`); checked by the bridge. Omitted: `unknown`. */
  returns?: R;
  requiresApproval?: boolean;
  /** Who may call it: `code` (programs in the sandbox), `direct` (direct tool calls) or `both` (default). */
  callers?: ToolCallers;
  /** Shown when asking for approval: a `{param}` template or a function of the arguments. */
  approvalMessage?: string | ((params: InferSchema<P>) => string);
  handler: (params: InferSchema<P>, context: ToolCallContext) => InferSchema<R> | Promise<InferSchema<R>>;
}

/** Brand that lets the loader recognise tool definitions among a module's exports. */
export const TOOL_DEFINITION = Symbol.for('agent-spaces.tool-definition');

/**
 * Any function definition, whatever its schemas. Structural on purpose: comparing against
 * `FunctionDefinition<any, any>` would make TypeScript expand `FromSchema<any>` without end.
 */
export interface AnyFunctionDefinition {
  description?: string;
  parameters?: SchemaInput;
  returns?: ReturnsInput;
  requiresApproval?: boolean;
  callers?: ToolCallers;
  approvalMessage?: string | ((params: never) => string);
  handler: (params: never, context: ToolCallContext) => unknown;
}

export interface ToolDefinitionInput {
  name: string;
  description?: string;
  version?: string;
  functions: Record<string, AnyFunctionDefinition>;
  config?: CapabilityConfig;
}

export interface ToolDefinition extends ToolDefinitionInput {
  readonly [TOOL_DEFINITION]: true;
}

/**
 * Defines a capability. Wrap each function in {@link defineFunction} to have its handler's
 * parameters typed from its schema.
 *
 * @example
 * export const weather = defineTool({
 *   name: 'weather',
 *   functions: {
 *     getWeather: defineFunction({
 *       parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
 *       handler: ({ city }) => lookup(city),
 *     }),
 *   },
 * });
 */
export function defineTool<const T extends ToolDefinitionInput>(definition: T): T & ToolDefinition {
  return { ...definition, [TOOL_DEFINITION]: true as const };
}

/** One function of a tool, its handler typed from `parameters` and `returns`. */
// `properties: {}` is the JSON Schema of an object without declared properties, not the TS `{}` type.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export function defineFunction<const P extends SchemaInput = { type: 'object'; properties: {} }, const R extends ReturnsInput = true>(
  definition: FunctionDefinition<P, R>,
): FunctionDefinition<P, R> {
  return definition;
}

export function isToolDefinition(value: unknown): value is ToolDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_DEFINITION] === true;
}
