import type { McpServerConfig } from '../../config/index.js';
import type { FunctionSpec, ToolAnnotations } from '../../core/index.js';

/**
 * Whether a tool has side effects: the server's `sideEffects` setting when there is one (a list names
 * the tools that do; the rest do not), else its annotations — `readOnlyHint: true` reads only;
 * `readOnlyHint: false` (it changes its environment, destructively or not) or `destructiveHint: true`
 * has side effects — else not known.
 */
export function toolEffects(server: McpServerConfig, toolName: string, annotations: ToolAnnotations | undefined): FunctionSpec['effects'] {
  const configured = server.sideEffects;
  if (configured === true) return 'side-effects';
  if (configured === false) return 'read-only';
  if (Array.isArray(configured)) return configured.includes(toolName) ? 'side-effects' : 'read-only';
  if (annotations?.destructiveHint === true || annotations?.readOnlyHint === false) return 'side-effects';
  if (annotations?.readOnlyHint === true) return 'read-only';
  return undefined;
}
