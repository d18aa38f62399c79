import { ToolCallError, callerAllowed, type CallerKind, type CapabilitySpec, type FunctionSpec, type ToolCallers } from '../core/index.js';

/** The callers a built function allows: its own setting, else its capability's; absent: both. */
export function allowedCallers(capability: CapabilitySpec, fn: FunctionSpec): ToolCallers {
  return fn.callers ?? capability.config.callers ?? 'both';
}

/**
 * Refuses a call by a caller the function does not allow (`CALLER_NOT_ALLOWED`). The caller is what
 * the host knows of the call's origin (a sandboxed run or a direct call), never what a program says.
 */
export function assertCallerAllowed(capability: CapabilitySpec, fn: FunctionSpec, caller: CallerKind): void {
  const allowed = allowedCallers(capability, fn);
  if (callerAllowed(allowed, caller)) return;
  const id = `${capability.module}.${fn.name}`;
  const message =
    caller === 'code'
      ? `${id} may not be called from code (callers: 'direct'): call it as a direct tool call, where a person or the client sees each call`
      : `${id} may not be called directly (callers: 'code'): call it from a program run in the sandbox (execute_code / run code)`;
  throw new ToolCallError(
    'CALLER_NOT_ALLOWED',
    message,
    { capability: capability.module, function: fn.name },
    { details: { caller, allowed } },
  );
}
