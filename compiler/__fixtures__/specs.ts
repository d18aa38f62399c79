// Capability specs built from the captured inputs beside this file, the way the compiler's loaders
// build them, so the emitters' tests do not depend on the loaders.
import { readFileSync } from 'node:fs';
import type { CapabilitySpec, FunctionSpec, JsonSchema } from '../../core/index.js';
import { assignFunctionNames } from '../../core/names.js';

function readJson(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as Record<string, unknown>;
}

interface SeedFunction {
  name: string;
  description?: string;
  parameters: JsonSchema;
  returns?: JsonSchema;
}

/** The seed's `trainSchedule` JSON tool (tools-mcp-conversion-spec.md). */
export function trainScheduleSpec(): CapabilitySpec {
  const file = readJson('train-schedule.json') as { description: string; version: string; functions: SeedFunction[] };
  return {
    module: 'train-schedule',
    namespace: 'trainSchedule',
    description: file.description,
    version: file.version,
    source: { kind: 'json', path: 'tools/train-schedule.json' },
    config: { rateLimit: { requests: 100, period: 'minute' } },
    functions: file.functions.map((fn) => ({
      name: fn.name,
      toolName: fn.name,
      ...(fn.description === undefined ? {} : { description: fn.description }),
      inputSchema: fn.parameters,
      ...(fn.returns === undefined ? {} : { outputSchema: fn.returns }),
      resultKind: 'value',
    })),
  };
}

/** The seed's OpenAI-style single tool `get_weather`. */
export function getWeatherSpec(): CapabilitySpec {
  const tool = readJson('get-weather.json') as { name: string; description: string; parameters: JsonSchema };
  return {
    module: 'weather',
    namespace: 'weather',
    source: { kind: 'json', path: 'tools/get-weather.json' },
    config: {},
    functions: [{ name: 'getWeather', toolName: tool.name, description: tool.description, inputSchema: tool.parameters, resultKind: 'value' }],
  };
}

interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/** The tools of `@modelcontextprotocol/server-everything`, captured from a real `tools/list`. */
export function mcpEverythingSpec(only?: readonly string[]): CapabilitySpec {
  const { tools } = readJson('mcp-everything-tools.json') as { tools: McpTool[] };
  const selected = only === undefined ? tools : tools.filter((tool) => only.includes(tool.name));
  const { names } = assignFunctionNames(selected.map((tool) => tool.name));
  return {
    module: 'mcp-everything',
    namespace: 'mcpEverything',
    source: { kind: 'mcp', server: 'everything' },
    config: {},
    functions: selected.map((tool): FunctionSpec => ({
      name: names.get(tool.name) ?? tool.name,
      toolName: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      resultKind: tool.outputSchema === undefined ? 'mcp-text' : 'mcp-structured',
    })),
  };
}

/** A spec with one module and the given functions (value results unless said otherwise). */
export function specWith(module: string, namespace: string, functions: Partial<FunctionSpec>[]): CapabilitySpec {
  return {
    module,
    namespace,
    source: { kind: 'json', path: `tools/${module}.json` },
    config: {},
    functions: functions.map((fn, index) => ({
      name: fn.name ?? `fn${index}`,
      toolName: fn.toolName ?? fn.name ?? `fn${index}`,
      inputSchema: fn.inputSchema ?? { type: 'object', properties: {} },
      resultKind: fn.resultKind ?? 'value',
      ...fn,
    })) as FunctionSpec[],
  };
}
