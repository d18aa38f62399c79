import type { ServerResponse } from 'node:http';
import type { ApprovalOrigin, AttachedOrigin, PendingApprovalView } from './wire-types.js';

export type { ApprovalOrigin, AttachedOrigin, PendingApprovalView };

/** What the studio pushes to open pages over server-sent events. */
export type StudioEvent =
  | {
      type: 'build-progress';
      source: string;
      status: 'start' | 'loaded' | 'failed';
      functions?: number;
      durationMs?: number;
      message?: string;
    }
  | { type: 'build-end'; ok: boolean; functions: number; errors: number; warnings: number; durationMs: number }
  | {
      type: 'tool-call-start';
      runId?: string;
      callId: string;
      capability: string;
      function: string;
      /** JSON text, cut to a preview. */ args: string;
      timestamp: string;
    }
  | {
      type: 'tool-call-end';
      runId?: string;
      callId: string;
      capability: string;
      function: string;
      ok: boolean;
      durationMs: number;
      error?: { code: string; message: string };
      timestamp: string;
    }
  | { type: 'run-log'; runId: string; level: string; message: string }
  | { type: 'run-end'; runId: string; success: boolean }
  /** A step of a playground task (a planner event, redacted). */
  | { type: 'task-event'; runId: string; event: unknown }
  /** A playground run queued in the store while no worker is alive to take it. */
  | { type: 'run-waiting-for-worker'; runId: string; store: string }
  /** A worker took a stored run (attempt 1), or took it over from a worker that died (attempt 2, …). */
  | { type: 'run-started'; runId: string; executorId: string; attempt: number; replayedCalls: number }
  | { type: 'approval-required'; approval: PendingApprovalView }
  | { type: 'approval-decided'; id: string; approved: boolean; reason?: string }
  | { type: 'agent-saved'; agent: number };

/** Keeps the open event streams and writes each event to all of them. */
export interface EventHub {
  attach(response: ServerResponse): void;
  publish(event: StudioEvent): void;
  close(): void;
}

/** Most event streams open at once; a page that opens more (a reload loop) closes its oldest. */
const MAX_STREAMS = 32;

export function createEventHub(): EventHub {
  const streams = new Set<ServerResponse>();
  // A comment line now and then keeps proxies and the browser from timing the stream out.
  const heartbeat = setInterval(() => {
    for (const stream of streams) stream.write(': keep-alive\n\n');
  }, 15_000);
  heartbeat.unref();
  return {
    attach(response) {
      if (streams.size >= MAX_STREAMS) {
        const oldest = streams.values().next().value;
        if (oldest) {
          streams.delete(oldest);
          oldest.end();
        }
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      response.write(': connected\n\n');
      streams.add(response);
      response.once('close', () => streams.delete(response));
    },
    publish(event) {
      const frame = `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
      for (const stream of streams) stream.write(frame);
    },
    close() {
      clearInterval(heartbeat);
      for (const stream of streams) stream.end();
      streams.clear();
    },
  };
}
