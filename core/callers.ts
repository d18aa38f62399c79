/**
 * Who may call a function: the model's program running in the sandbox (`code`), a direct call made
 * outside any program (`direct`: a planner step, `serve`'s `call_tool`, `space.callTool`, the studio's
 * function tester), or both. Teams typically let code read and keep writes direct, so that a person sees
 * each one. The bridge enforces it for every call, however it was made.
 */
export type ToolCallers = 'code' | 'direct' | 'both';

/** Who is making one call: a sandboxed program run, or a direct call. */
export type CallerKind = 'code' | 'direct';

export const TOOL_CALLERS: readonly ToolCallers[] = ['code', 'direct', 'both'];

/** Whether a function whose allowed callers are `allowed` (absent: both) may be called by `caller`. */
export function callerAllowed(allowed: ToolCallers | undefined, caller: CallerKind): boolean {
  return allowed === undefined || allowed === 'both' || allowed === caller;
}

/** The TSDoc / description line for a restricted function; `undefined` for `both`. */
export function describeCallers(allowed: ToolCallers | undefined): string | undefined {
  if (allowed === 'direct') return '@callers direct — not callable from code: only a direct tool call may call it.';
  if (allowed === 'code') return '@callers code — callable only from code run in the sandbox, not as a direct tool call.';
  return undefined;
}
