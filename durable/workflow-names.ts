/** Names shared by workers and submitters: DBOS's application, our workflow and its queue. */
export const APPLICATION_NAME = 'agent-spaces';
export const RUN_WORKFLOW = 'agent-spaces-run';
export const RUN_QUEUE = 'agent-spaces-runs';

/** What a submitter sends a worker: one program to run (arguments of the workflow, kept by DBOS). */
export interface DurableRunRequest {
  code: string;
  check: boolean;
  limits?: { timeoutMs?: number };
}
