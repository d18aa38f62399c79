// What the durable worker (worker/) writes and reads of the store itself, inside its DBOS steps: the
// tables, the journal rows, events, liveness, approvals, retention. Not the package's API: store/index.ts
// is (and loads neither pg nor DBOS); this file loads both, and only the worker imports it.
export { closeRunApprovals, requestStoredApproval } from './approval-store.js';
export { createApprovalWaiter, type ApprovalWaiter } from './approval-waiter.js';
export { createEnginePool, migrateDbosSchema, notifyRunsQueued } from './dbos-schema.js';
export { DurableError } from './durable-error.js';
export { parseDuration } from './duration.js';
export { holdLiveness, whileDead } from './liveness.js';
export { pruneOnce } from './prune.js';
export { createStoredSessionState } from './session-state.js';
export { appendRunEvent, type DurableRunEvent } from './run-events.js';
export {
  createPool,
  ensureStoreSchema,
  prepared,
  RUN_EVENTS_CHANNEL,
  RUN_QUEUE_CHANNEL,
  SCHEMA,
  storeUnavailable,
  type Pool,
} from './store.js';
export { listenToStore } from './store-listener.js';
export { describeStore } from './store-url.js';
export { createStoreWriter, type StoreWriter } from './store-writer.js';
export {
  APPLICATION_NAME,
  RUN_QUEUE,
  RUN_WORKFLOW,
  TASK_WORKFLOW,
  type DurableRunRequest,
  type DurableTaskRequest,
} from './workflow-names.js';
