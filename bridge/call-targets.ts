import { ToolCallError } from '../core/index.js';
import type { CallAccess, CapabilityCallParams, CapabilitySpec, FunctionSpec } from '../core/index.js';
import type { SchemaCheck } from './schema-validator.js';

/** One function of one capability: what a call names, once found. */
export interface CallTarget {
  capability: CapabilitySpec;
  function: FunctionSpec;
}

/** What every call of one function needs and does not change between calls: made on its first call. */
export interface PreparedFunction {
  target: CallTarget;
  /** How messages name the function: `tool "<tool name>" of capability "<module>"`. */
  subject: string;
  names: { capability: string; function: string };
  /** Compiled checks of its arguments and result (the result's: an output schema or one learned). */
  args?: SchemaCheck;
  result?: SchemaCheck;
}

/** A capability's functions by name and by tool name (the first of each, as listed), and what each function's calls need. */
interface CapabilityIndex {
  byName: Map<string, FunctionSpec>;
  byToolName: Map<string, FunctionSpec>;
  prepared: Map<FunctionSpec, PreparedFunction>;
}

/**
 * The bridge's capabilities, indexed: finds the function a call names, within what its run may call,
 * and keeps per function what its calls need (names, compiled checks), built on its first call.
 */
export class CallTargets {
  readonly #byModule: Map<string, CapabilitySpec>;
  /** Keyed by the capability: two capabilities may share a function object. */
  readonly #indexes = new WeakMap<CapabilitySpec, CapabilityIndex>();

  constructor(capabilities: readonly CapabilitySpec[]) {
    this.#byModule = new Map(capabilities.map((capability) => [capability.module, capability]));
  }

  /** The capability of a module, whatever a run may call. */
  capability(module: string): CapabilitySpec | undefined {
    return this.#byModule.get(module);
  }

  /**
   * Finds the function a call names, within what the run may call: a function outside the run's access
   * is refused, and names outside it are never listed in an error.
   */
  resolve(params: CapabilityCallParams, access: CallAccess | undefined): PreparedFunction {
    const found = this.#byModule.get(params.capability);
    // Without access every module is visible; with it, one the run may call some function of.
    const capability =
      access === undefined || (found !== undefined && found.functions.some((fn) => access.allows(found.module, fn.name)))
        ? found
        : undefined;
    if (capability === undefined) {
      const available = [...this.#byModule.values()]
        .filter((candidate) => visibleFunctions(candidate, access).length > 0)
        .map((candidate) => candidate.module)
        .sort();
      throw new ToolCallError(
        'UNKNOWN_CAPABILITY',
        `unknown capability "${params.capability}": available modules are ${available.length === 0 ? '(none)' : available.join(', ')}`,
        { capability: params.capability, function: params.function },
        { details: { available } },
      );
    }
    const spec = this.#findFunction(capability, params.function);
    if (spec !== undefined && access !== undefined && !access.allows(capability.module, spec.name)) {
      throw new ToolCallError(
        'ACCESS_DENIED',
        `${capability.module}.${spec.name} is not available to ${access.scope}: call only the functions it was given (see search_tools)`,
        { capability: capability.module, function: spec.name },
      );
    }
    if (spec === undefined) {
      const available = visibleFunctions(capability, access).map((candidate) => candidate.name);
      throw new ToolCallError(
        'UNKNOWN_FUNCTION',
        `capability "${capability.module}" has no function "${params.function}": its functions are ${available.length === 0 ? '(none)' : available.join(', ')}`,
        { capability: capability.module, function: params.function },
        { details: { available } },
      );
    }
    return this.prepare(capability, spec);
  }

  /** What the calls of a function need, made on its first call and kept. */
  prepare(capability: CapabilitySpec, spec: FunctionSpec): PreparedFunction {
    const { prepared: byFunction } = this.#indexOf(capability);
    let prepared = byFunction.get(spec);
    if (prepared === undefined) {
      prepared = {
        target: { capability, function: spec },
        subject: `tool "${spec.toolName}" of capability "${capability.module}"`,
        names: { capability: capability.module, function: spec.name },
      };
      byFunction.set(spec, prepared);
    }
    return prepared;
  }

  /** The function a call names: by its name first, else by its tool's name (the first of each, as listed). */
  #findFunction(capability: CapabilitySpec, name: string): FunctionSpec | undefined {
    const index = this.#indexOf(capability);
    return index.byName.get(name) ?? index.byToolName.get(name);
  }

  #indexOf(capability: CapabilitySpec): CapabilityIndex {
    let index = this.#indexes.get(capability);
    if (index === undefined) {
      index = { byName: new Map(), byToolName: new Map(), prepared: new Map() };
      for (const fn of capability.functions) {
        if (!index.byName.has(fn.name)) index.byName.set(fn.name, fn);
        if (!index.byToolName.has(fn.toolName)) index.byToolName.set(fn.toolName, fn);
      }
      this.#indexes.set(capability, index);
    }
    return index;
  }
}

/** The functions of a capability a run may call (all of them without access control). */
function visibleFunctions(capability: CapabilitySpec, access: CallAccess | undefined): FunctionSpec[] {
  return capability.functions.filter((fn) => access === undefined || access.allows(capability.module, fn.name));
}
