import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { errorMessage, type CapabilitySpec, type FunctionSpec } from '../../core/index.js';
import { runChatLoop } from './chat-loop.js';
import type { ArmInput, ArmOutcome } from './arm-types.js';

/** The most functions the direct arm offers; top-k selection by search is not built, so more are refused (docs/EVAL.md). */
export const DIRECT_ALL_FUNCTIONS_UP_TO = 128;

export interface DirectFunction {
  /** The function-tool name the model sees. */
  name: string;
  /** The catalog id the call goes to. */
  id: string;
  spec: FunctionSpec;
}

/**
 * The suite module's functions as function tools: named by their tool name (τ²'s own names for
 * retail) when those are unique and valid OpenAI names, else `<module>__<function>`.
 */
export function directFunctions(specs: readonly CapabilitySpec[], module: string): DirectFunction[] {
  const spec = specs.find((candidate) => candidate.module === module);
  if (!spec) throw new Error(`the suite's space has no module "${module}" (it has ${specs.map((s) => s.module).join(', ')})`);
  const valid = (name: string) => /^[A-Za-z0-9_-]{1,64}$/.test(name);
  const unique = new Set(spec.functions.map((fn) => fn.toolName)).size === spec.functions.length;
  return spec.functions.map((fn) => ({
    name: unique && valid(fn.toolName) ? fn.toolName : `${spec.module}__${fn.name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64),
    id: `${spec.module}.${fn.name}`,
    spec: fn,
  }));
}

/**
 * Classic tool calling: every function of the suite's module as a function tool (at most
 * DIRECT_ALL_FUNCTIONS_UP_TO of them), each call
 * performed through the space's bridge, its result given back as JSON text (an error as
 * `Error: <message>`, as τ² does).
 */
export async function runDirectArm(input: ArmInput): Promise<ArmOutcome> {
  const functions = directFunctions(await input.space.capabilities(), input.suite.module);
  if (functions.length > DIRECT_ALL_FUNCTIONS_UP_TO)
    throw new Error(
      `the direct arm offers at most ${DIRECT_ALL_FUNCTIONS_UP_TO} functions; module ${input.suite.module} has ${functions.length}`,
    );
  const tools: ChatCompletionFunctionTool[] = functions.map((fn) => ({
    type: 'function',
    function: {
      name: fn.name,
      ...(fn.spec.description ? { description: fn.spec.description } : {}),
      parameters: fn.spec.inputSchema as Record<string, unknown>,
    },
  }));
  const byName = new Map(functions.map((fn) => [fn.name, fn]));
  return runChatLoop({
    model: input.model,
    system: input.suite.policy,
    user: input.task.instruction,
    tools,
    budget: input.budget,
    counter: input.counter,
    ...(input.signal ? { signal: input.signal } : {}),
    async perform(name, args) {
      const fn = byName.get(name);
      if (!fn) return { content: `Error: there is no tool "${name}"`, toolCalls: 0 };
      try {
        const value = await input.space.callTool(fn.id, args, input.signal ? { signal: input.signal } : {});
        return { content: typeof value === 'string' ? value : JSON.stringify(value), toolCalls: 1 };
      } catch (error) {
        return { content: `Error: ${errorMessage(error)}`, toolCalls: 1 };
      }
    },
  });
}
