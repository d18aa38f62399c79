import type { ServerContext } from '@modelcontextprotocol/server';
import { parseTraceparent } from '../core/index.js';

/** The caller's W3C trace context from the request's `_meta.traceparent`: the run's or call's span becomes its child. */
export function traceOf(ctx: ServerContext): { traceparent?: string } {
  const traceparent = ctx.mcpReq._meta?.traceparent;
  return parseTraceparent(traceparent) === undefined ? {} : { traceparent: String(traceparent) };
}
