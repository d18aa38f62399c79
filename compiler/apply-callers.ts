import type { ResolvedConfig } from '../config/index.js';
import type { CapabilitySpec, FunctionSpec, ToolCallers } from '../core/index.js';

type SourceCallers = ToolCallers | Record<string, ToolCallers>;

/**
 * Settles who may call each function (`FunctionSpec.callers`), the nearest setting winning: the
 * function's own (its definition, or its tool's entry in the server's `callers`), its capability's
 * (the definition's `config.callers`, the server's `'*'` or single setting), the space's `callers`.
 * `both` is left unsaid, so that specs (and their hashes) without restrictions stay as they were.
 */
export function applyCallers(specs: CapabilitySpec[], config: ResolvedConfig): CapabilitySpec[] {
  return specs.map((spec) => {
    const fromSource = sourceCallers(spec, config);
    let changed = false;
    const functions = spec.functions.map((fn): FunctionSpec => {
      const callers = fn.callers ?? perTool(fromSource, fn.toolName) ?? spec.config.callers ?? perSource(fromSource) ?? config.callers;
      if (callers === fn.callers || (callers === 'both' && fn.callers === undefined) || callers === undefined) return fn;
      changed = true;
      if (callers === 'both') {
        const { callers: _dropped, ...rest } = fn;
        return rest;
      }
      return { ...fn, callers };
    });
    return changed ? { ...spec, functions } : spec;
  });
}

function sourceCallers(spec: CapabilitySpec, config: ResolvedConfig): SourceCallers | undefined {
  if (spec.source.kind === 'mcp') return config.mcpServers[spec.source.server]?.callers;
  if (spec.source.kind === 'openapi') return config.openapi?.[spec.source.api]?.callers;
  return undefined;
}

function perTool(callers: SourceCallers | undefined, toolName: string): ToolCallers | undefined {
  return typeof callers === 'object' && Object.hasOwn(callers, toolName) ? callers[toolName] : undefined;
}

function perSource(callers: SourceCallers | undefined): ToolCallers | undefined {
  if (typeof callers === 'string') return callers;
  return typeof callers === 'object' && Object.hasOwn(callers, '*') ? callers['*'] : undefined;
}
