import { ToolCallError, errorMessage } from './errors.js';
import { untilAborted } from './until-aborted.js';
import type { AnyFunctionDefinition, SchemaInput, ToolCallContext, ToolDefinition } from './define-tool.js';
import type { Backend, BackendCall } from './backend.js';

interface ZodLike {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false };
  safeParseAsync(value: unknown): Promise<{ success: true; data: unknown } | { success: false; error: { issues: ZodIssueLike[] } }>;
}

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

/**
 * A backend that runs `defineTool` handlers in this process (TypeScript capabilities and the
 * standard library). Functions are found by `FunctionSpec.toolName`, the key in `definition.functions`.
 *
 * @param tools the definitions, by module name (`{ weather: weatherTool, 'std-fs': fsTool }`)
 */
export function createInProcessBackend(tools: Record<string, ToolDefinition>): Backend {
  const definitionOf = (call: BackendCall): AnyFunctionDefinition => {
    const tool = tools[call.capability.module];
    const names = { capability: call.capability.module, function: call.function.name };
    if (tool === undefined) {
      throw new ToolCallError(
        'SERVER_UNAVAILABLE',
        `capability "${call.capability.module}" has no in-process definition: pass its defineTool() result to createInProcessBackend`,
        names,
      );
    }
    const definition = tool.functions[call.function.toolName] ?? tool.functions[call.function.name];
    if (definition === undefined) {
      throw new ToolCallError(
        'UNKNOWN_FUNCTION',
        `tool "${tool.name}" has no function "${call.function.toolName}" (its functions are ${Object.keys(tool.functions).join(', ')}): rebuild the capabilities`,
        names,
      );
    }
    return definition;
  };

  return {
    async call(call) {
      const definition = definitionOf(call);
      const names = { capability: call.capability.module, function: call.function.name };
      const subjectOf = (): string => `tool "${call.function.toolName}" of capability "${call.capability.module}"`;
      // Without a zod schema there is nothing to parse (the bridge validated the JSON Schema): no await.
      const args = isZodSchema(definition.parameters)
        ? await parseWithZod(definition.parameters, call.args, subjectOf(), names)
        : call.args;
      const context: ToolCallContext = {
        runId: call.context.runId,
        capability: call.capability.module,
        function: call.function.name,
        signal: call.context.signal,
      };
      const handler = definition.handler as (params: unknown, context: ToolCallContext) => unknown;
      const { signal } = call.context;
      const cancelled = (): ToolCallError => new ToolCallError('CANCELLED', `${subjectOf()} was cancelled: the run ended`, names);
      try {
        // Called in a later microtask, as before, so a handler never runs inside its caller's frame.
        await undefined;
        const result = handler(args, context);
        // A handler that answered at once (most do) has nothing left to race against the run's end;
        // one that returns a promise is raced against it (the run ends: the call is cancelled).
        if (!isThenable(result)) {
          if (signal.aborted) throw cancelled();
          return result;
        }
        return await untilAborted(Promise.resolve(result), signal, cancelled);
      } catch (error) {
        if (error instanceof ToolCallError) throw error;
        throw new ToolCallError('TOOL_FAILED', `${subjectOf()} failed: ${errorMessage(error)}`, names, { cause: error });
      }
    },
    approvalMessage(call) {
      const definition = definitionOf(call);
      const template = definition.approvalMessage;
      if (typeof template !== 'function') return undefined;
      // The message function sees what the handler will see: zod defaults and transforms applied.
      const parsed = isZodSchema(definition.parameters) ? definition.parameters.safeParse(call.args) : undefined;
      return (template as (params: unknown) => string)(parsed?.success ? parsed.data : call.args);
    },
    async close() {},
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

function isZodSchema(schema: SchemaInput | undefined): schema is SchemaInput & ZodLike {
  return typeof schema === 'object' && schema !== null && typeof (schema as Partial<ZodLike>).safeParseAsync === 'function';
}

async function parseWithZod(
  schema: SchemaInput & ZodLike,
  args: Record<string, unknown>,
  subject: string,
  names: { capability: string; function: string },
): Promise<unknown> {
  // The bridge validated against the JSON Schema already; zod adds defaults, transforms and refinements.
  const parsed = await schema.safeParseAsync(args);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path === '' ? issue.message : `argument "${path}": ${issue.message}`;
  });
  throw new ToolCallError('INVALID_ARGUMENTS', `${subject}: ${issues.join('; ')}`, names, { details: { issues: parsed.error.issues } });
}
