/** Names shared by workers and submitters: DBOS's application, our workflow and its queue. */
export const APPLICATION_NAME = 'agent-spaces';
export const RUN_WORKFLOW = 'agent-spaces-run';
export const RUN_QUEUE = 'agent-spaces-runs';
export const TASK_WORKFLOW = 'agent-spaces-task';

/** What a submitter sends a worker: one program to run (arguments of the workflow, kept by DBOS). */
export interface DurableRunRequest {
  code: string;
  check: boolean;
  limits?: { timeoutMs?: number };
  /** The run's session-state scope (`@capabilities/session`), e.g. its MCP session's. */
  session?: string;
}

/** What a submitter sends a worker for a planner task (the worker's config gives the model endpoint and key). */
export interface DurableTaskRequest {
  task: string;
  context?: string;
  model?: { model?: string; baseURL?: string };
  budget?: Record<string, number>;
}
