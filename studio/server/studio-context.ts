import path from 'node:path';
import type { BuildResult } from '../../compiler/index.js';
import type { ResolvedConfig } from '../../config/index.js';
import { createRedactor, type BridgeEvent } from '../../core/index.js';
import type { Space, SpaceOptions } from '../../space/index.js';
import { createApprovalInbox, type ApprovalInbox } from './approval-inbox.js';
import { previewJson } from './preview-json.js';
import { createEventHub, type EventHub } from './studio-events.js';
import { openStudioStore, type StudioStore } from './studio-store.js';
import type { TimelineCall } from './wire-types.js';

export type { TimelineCall };

/** What the last build reported, kept for the capabilities pane. */
export interface BuildSummary {
  at: string;
  durationMs: number;
  functions: number;
  sources: BuildResult['sources'];
  warnings: BuildResult['warnings'];
  errors: BuildResult['errors'];
}

/** Everything the API handlers share: one space, opened the way the CLI opens it. */
export interface StudioContext {
  space: Space;
  config: ResolvedConfig;
  events: EventHub;
  approvals: ApprovalInbox;
  /** Removes the host's secrets from what the studio shows (as `run` does for what it prints). */
  redact: <T>(value: T) => T;
  /** `<outDir>/runs`: planner traces and the studio's code runs. */
  runsDir: string;
  /** Where `agent-spaces eval` writes its run folders (`<root>/.agent-spaces/eval` unless given). */
  evalDir: string;
  /**
   * Calls of the playground's runs in progress, by run id: a run registers its timeline before it starts
   * and takes it out when it ends (calls of other runs are not kept).
   */
  timelines: Map<string, TimelineCall[]>;
  /**
   * The durable runs' store, when one is configured: the playground's runs go to its workers, the
   * inbox lists its approvals, the runs pane its runs. Undefined: everything runs in this process.
   */
  store?: StudioStore;
  lastBuild?: BuildSummary;
  build(force?: boolean): Promise<BuildSummary>;
  close(): Promise<void>;
}

export type OpenSpace = (options: SpaceOptions) => Promise<Space>;

export async function createStudioContext(
  openSpace: OpenSpace,
  options: Pick<SpaceOptions, 'config' | 'cwd' | 'configFile' | 'isolation'>,
  storeOption?: string,
  evalDir?: string,
): Promise<StudioContext> {
  const events = createEventHub();
  const timelines = new Map<string, TimelineCall[]>();
  let redact: <T>(value: T) => T = (value) => value;
  const approvals = createApprovalInbox(events, (value) => redact(value));
  const space = await openSpace({ ...options, approvalHandler: approvals.handler, onEvent: (event) => recordEvent(event) });
  redact = createRedactor({ secrets: space.secrets });
  let store: StudioStore | undefined;
  try {
    store = await openStudioStore({ option: storeOption, config: space.config.store }, events, (value) => redact(value));
  } catch (error) {
    await space.close();
    throw error;
  }

  function recordEvent(event: BridgeEvent): void {
    if (event.type === 'tool-call-start') {
      const args = previewJson(event.args);
      if (event.runId)
        timelines.get(event.runId)?.push({
          callId: event.callId,
          capability: event.capability,
          function: event.function,
          args,
          startedAt: Date.parse(event.timestamp),
        });
      events.publish({
        type: 'tool-call-start',
        ...(event.runId ? { runId: event.runId } : {}),
        callId: event.callId,
        capability: event.capability,
        function: event.function,
        args,
        timestamp: event.timestamp,
      });
    } else if (event.type === 'tool-call-end') {
      const call = event.runId ? timelines.get(event.runId)?.find((entry) => entry.callId === event.callId) : undefined;
      if (call) Object.assign(call, { durationMs: event.durationMs, ok: event.ok, ...(event.error ? { error: event.error } : {}) });
      events.publish({
        type: 'tool-call-end',
        ...(event.runId ? { runId: event.runId } : {}),
        callId: event.callId,
        capability: event.capability,
        function: event.function,
        ok: event.ok,
        durationMs: event.durationMs,
        ...(event.error ? { error: event.error } : {}),
        timestamp: event.timestamp,
      });
    }
  }

  let building: Promise<BuildSummary> | undefined;
  const context: StudioContext = {
    space,
    config: space.config,
    events,
    approvals,
    redact: (value) => redact(value),
    runsDir: path.join(space.config.outDir, 'runs'),
    evalDir: path.resolve(space.config.root, evalDir ?? path.join('.agent-spaces', 'eval')),
    timelines,
    ...(store ? { store } : {}),
    build(force = false) {
      // Two Rebuild clicks share one build: the compiler writes the output folder.
      building ??= (async () => {
        try {
          const result = await space.build({
            force,
            onProgress: (event) =>
              events.publish(
                event.type === 'source-start'
                  ? { type: 'build-progress', source: event.source, status: 'start' }
                  : {
                      type: 'build-progress',
                      source: event.source,
                      status: event.status,
                      functions: event.functions,
                      durationMs: event.durationMs,
                      ...(event.message ? { message: event.message } : {}),
                    },
              ),
          });
          const summary: BuildSummary = {
            at: new Date().toISOString(),
            durationMs: result.durationMs,
            functions: result.functionCount,
            sources: result.sources,
            warnings: result.warnings,
            errors: result.errors,
          };
          context.lastBuild = summary;
          events.publish({
            type: 'build-end',
            ok: result.errors.length === 0,
            functions: result.functionCount,
            errors: result.errors.length,
            warnings: result.warnings.length,
            durationMs: result.durationMs,
          });
          return summary;
        } finally {
          building = undefined;
        }
      })();
      return building;
    },
    async close() {
      approvals.close();
      await store?.close();
      events.close();
      await space.close();
    },
  };
  return context;
}
