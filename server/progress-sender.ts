import type { ServerContext } from '@modelcontextprotocol/server';
import type { RunLog } from '../core/index.js';
import type { RunProgress } from './approval-rounds.js';

/** Log lines of one run sent as progress, and the characters of each (the result has them all). */
export const MAX_LOG_NOTIFICATIONS = 200;
/** Finished calls of one run sent as progress (a program may make `maxCalls` of them; the result counts them all). */
export const MAX_CALL_NOTIFICATIONS = 200;
const MAX_LOG_NOTIFICATION_CHARS = 2_000;

export interface ProgressSender extends RunProgress {
  readonly wanted: boolean;
  /** A line the caller should know while it waits (sent as progress when it asked for progress). */
  notice(message: string): void;
  /** Waits until the notifications sent so far are out: progress must reach the client before the result does. */
  flush(): Promise<void>;
}

/**
 * Progress of one request, when it asked for progress: log lines and finished calls, each bounded
 * (the result has them all); `progress` grows with every notification.
 */
export function progressSender(ctx: ServerContext): ProgressSender {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const sent: Promise<unknown>[] = [];
  let notifications = 0;
  let logLines = 0;
  let callLines = 0;
  const send = (message: string): void => {
    if (progressToken === undefined) return;
    notifications++;
    sent.push(
      ctx.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken, progress: notifications, message } })
        .catch(() => undefined),
    );
  };
  return {
    wanted: progressToken !== undefined,
    notice: send,
    log(log) {
      logLines++;
      if (logLines > MAX_LOG_NOTIFICATIONS) return;
      send(logLines === MAX_LOG_NOTIFICATIONS ? 'log: … the rest of the log is in the result' : logLine(log));
    },
    callEnded(event) {
      if (event.type !== 'tool-call-end') return;
      callLines++;
      if (callLines > MAX_CALL_NOTIFICATIONS) return;
      send(
        callLines === MAX_CALL_NOTIFICATIONS
          ? 'calls: … the result counts the rest'
          : `${event.capability}.${event.function} ${event.ok ? 'done' : `failed (${event.error?.code ?? 'error'})`}`,
      );
    },
    async flush() {
      await Promise.all(sent);
      // The SDK client handles a notification a microtask after a response that arrives in the same
      // chunk, and drops progress once the response is in: let the notifications go out on their own.
      if (sent.length > 0) await new Promise((resolve) => setTimeout(resolve, 2));
    },
  };
}

function logLine({ level, message }: RunLog): string {
  const line = message.length > MAX_LOG_NOTIFICATION_CHARS ? `${message.slice(0, MAX_LOG_NOTIFICATION_CHARS)}… [cut]` : message;
  return `log${level === 'log' ? '' : ` [${level}]`}: ${line}`;
}
