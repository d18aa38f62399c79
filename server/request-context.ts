import type { ServerContext } from '@modelcontextprotocol/server';

const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** Whether a request is of the 2026-07-28 protocol (it carries the per-request `_meta` envelope). */
export function modernEra(ctx: ServerContext): boolean {
  return ctx.mcpReq.envelope !== undefined && Object.keys(ctx.mcpReq.envelope).length > 0;
}

/** The client capabilities a 2026-07-28 request declares in its envelope. */
export function clientCapabilities(ctx: ServerContext): { elicitation?: unknown } | undefined {
  return (ctx.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined)?.[CLIENT_CAPABILITIES_KEY];
}

/** Where a large result's pages may be read: the session that made it, or (no session) whoever holds its sealed handle. */
export function pageScope(ctx: ServerContext): string {
  return ctx.sessionId ? `session:${ctx.sessionId}` : 'handle';
}
