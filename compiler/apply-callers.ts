import type { ResolvedConfig } from '../config/index.js';
import {
  sourceOfKind,
  type CapabilitySource,
  type CapabilitySpec,
  type FunctionSpec,
  type SourceCallers,
  type ToolCallers,
} from '../core/index.js';

/**
 * Settles who may call each function (`FunctionSpec.callers`), the nearest setting winning: the
 * function's own (its definition, or its tool's entry in the server's `callers`), its capability's
 * (the definition's `config.callers`, the server's `'*'` or single setting), the space's `callers`.
 * `both` is left unsaid, so that specs (and their hashes) without restrictions stay as they were.
 * A source's setting is what the source of the spec's kind reads from its configuration (`callers`).
 */
export function applyCallers(
  specs: CapabilitySpec[],
  config: ResolvedConfig,
  sources: readonly Pick<CapabilitySource<ResolvedConfig>, 'kind' | 'callers'>[],
): CapabilitySpec[] {
  return specs.map((spec) => {
    const fromSource = sourceOfKind(sources, spec.source.kind)?.callers?.(spec.source, config);
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

function perTool(callers: SourceCallers | undefined, toolName: string): ToolCallers | undefined {
  return typeof callers === 'object' && Object.hasOwn(callers, toolName) ? callers[toolName] : undefined;
}

function perSource(callers: SourceCallers | undefined): ToolCallers | undefined {
  if (typeof callers === 'string') return callers;
  return typeof callers === 'object' && Object.hasOwn(callers, '*') ? callers['*'] : undefined;
}
