import { checkTool, getAgent, listAgents, saveTools, testTool } from './api-agents.js';
import { listCapabilities, rebuild, search } from './api-capabilities.js';
import { compareEvalRuns, getEvalRun, getEvalTranscript, listEvalRuns } from './api-eval.js';
import { checkProgram, MAX_RUN_NAME, runProgram } from './api-playground.js';
import { getRun, listRuns, replayRun } from './api-runs.js';
import { starterProgram } from './api-starter.js';
import { runTask } from './api-tasks.js';
import { callFunction, validateArguments } from './api-tester.js';
import { errorMessage } from '../../core/index.js';
import type { StudioContext } from './studio-context.js';
import type { StudioStore } from './studio-store.js';
import { field, isObject, isString, StudioError } from './studio-error.js';
import type { ApprovalListView, SpaceView } from './wire-types.js';

export interface RouteRequest {
  context: StudioContext;
  /** The path's captured parts (`/api/agents/0` → `['0']`). */
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

interface Route {
  method: 'GET' | 'POST' | 'PUT';
  path: RegExp;
  handle(request: RouteRequest): Promise<unknown>;
}

const isArray = (value: unknown): value is unknown[] => Array.isArray(value);
const isInteger = (value: unknown): value is number => Number.isInteger(value);
const isAnything = (_value: unknown): _value is unknown => true;

/** The JSON API: each route reads its input and calls the library, nothing more. */
export const ROUTES: Route[] = [
  { method: 'GET', path: /^\/api\/space$/, handle: async ({ context }) => spaceInfo(context) },
  { method: 'GET', path: /^\/api\/capabilities$/, handle: ({ context }) => listCapabilities(context) },
  { method: 'POST', path: /^\/api\/build$/, handle: ({ context, body }) => rebuild(context, isObject(body) && body.force === true) },
  {
    method: 'GET',
    path: /^\/api\/search$/,
    handle: ({ context, query }) => search(context, query.get('q') ?? '', query.get('detail') ?? 'summary'),
  },
  {
    method: 'POST',
    path: /^\/api\/check$/,
    handle: ({ context, body }) => checkProgram(context, field(body, 'code', isString, 'a string (the program)')),
  },
  { method: 'GET', path: /^\/api\/starter$/, handle: ({ context }) => starterProgram(context) },
  {
    method: 'POST',
    path: /^\/api\/run$/,
    handle: ({ context, body }) => runProgram(context, field(body, 'code', isString, 'a string (the program)'), runName(body)),
  },
  {
    method: 'POST',
    path: /^\/api\/task$/,
    handle: ({ context, body }) => runTask(context, field(body, 'task', isString, 'a string (the task in words)')),
  },
  {
    method: 'POST',
    path: /^\/api\/validate$/,
    handle: ({ context, body }) =>
      validateArguments(
        context,
        field(body, 'id', isString, 'a function id "<module>.<function>"'),
        field(body, 'arguments', isAnything, 'the arguments'),
      ),
  },
  {
    method: 'POST',
    path: /^\/api\/call$/,
    handle: ({ context, body }) =>
      callFunction(
        context,
        field(body, 'id', isString, 'a function id "<module>.<function>"'),
        field(body, 'arguments', isAnything, 'the arguments') ?? {},
      ),
  },
  { method: 'GET', path: /^\/api\/agents$/, handle: ({ context }) => listAgents(context) },
  { method: 'GET', path: /^\/api\/agents\/(\d+)$/, handle: ({ context, params }) => getAgent(context, Number(params[0])) },
  {
    method: 'POST',
    path: /^\/api\/agents\/(\d+)\/check$/,
    handle: ({ context, params, body }) =>
      checkTool(
        context,
        Number(params[0]),
        field(body, 'position', isInteger, "an integer (the tool's index, -1 for a new tool)"),
        field(body, 'tool', isObject, 'a tool object'),
        isObject(body) ? body.sample : undefined,
      ),
  },
  {
    method: 'PUT',
    path: /^\/api\/agents\/(\d+)\/tools$/,
    handle: ({ context, params, body }) => saveTools(context, Number(params[0]), field(body, 'tools', isArray, 'an array of tools')),
  },
  {
    method: 'POST',
    path: /^\/api\/agents\/(\d+)\/test$/,
    handle: ({ context, params, body }) =>
      testTool(context, Number(params[0]), field(body, 'tool', isObject, 'a tool object'), isObject(body) ? body.arguments : undefined),
  },
  { method: 'GET', path: /^\/api\/runs$/, handle: ({ context }) => listRuns(context) },
  { method: 'GET', path: /^\/api\/runs\/([^/]+)$/, handle: ({ context, params }) => getRun(context, decodeURIComponent(params[0] ?? '')) },
  {
    method: 'POST',
    path: /^\/api\/runs\/([^/]+)\/replay$/,
    handle: ({ context, params }) => replayRun(context, decodeURIComponent(params[0] ?? '')),
  },
  { method: 'GET', path: /^\/api\/eval\/runs$/, handle: ({ context }) => listEvalRuns(context) },
  { method: 'GET', path: /^\/api\/eval\/runs\/([^/]+)$/, handle: ({ context, params }) => getEvalRun(context, decodePart(params[0])) },
  {
    method: 'GET',
    path: /^\/api\/eval\/runs\/([^/]+)\/transcripts\/([^/]+)\/([^/]+)\/([^/]+)$/,
    handle: ({ context, params }) =>
      getEvalTranscript(context, decodePart(params[0]), decodePart(params[1]), decodePart(params[2]), decodePart(params[3])),
  },
  {
    method: 'GET',
    path: /^\/api\/eval\/compare$/,
    handle: ({ context, query }) => compareEvalRuns(context, query.get('before') ?? '', query.get('after') ?? ''),
  },
  { method: 'GET', path: /^\/api\/approvals$/, handle: ({ context }) => listApprovals(context) },
  {
    method: 'POST',
    // The studio's own calls have UUIDs; the store's approvals short hexadecimal ids.
    path: /^\/api\/approvals\/([0-9a-f-]{1,36})$/,
    handle: async ({ context, params, body }) => {
      const id = params[0] ?? '';
      const approved = field(body, 'approved', (value): value is boolean => typeof value === 'boolean', 'true or false');
      const reason = isObject(body) && typeof body.reason === 'string' && body.reason !== '' ? body.reason : undefined;
      if (context.approvals.decide(id, approved, reason)) return { decided: id, approved };
      if (context.store?.inbox.owns(id)) {
        await context.store.inbox.decide(id, approved, reason);
        return { decided: id, approved };
      }
      throw new StudioError('STUDIO_NOT_FOUND', `no call waiting for approval with id ${id}: it was decided already or its run ended`);
    },
  },
];

/** A captured part of the path, percent-decoded; a bad escape is a 400, not a crash. */
function decodePart(part: string | undefined): string {
  try {
    return decodeURIComponent(part ?? '');
  } catch {
    throw new StudioError('STUDIO_BAD_REQUEST', `"${(part ?? '').slice(0, 100)}" is not a valid percent-encoded path part`);
  }
}

/** The name a user gave a run (optional; one line of at most MAX_RUN_NAME characters, trimmed). */
function runName(body: unknown): string | undefined {
  const name = isObject(body) ? body.name : undefined;
  if (name === undefined || name === null) return undefined;
  if (typeof name !== 'string' || name.length > MAX_RUN_NAME || /[\r\n]/.test(name))
    throw new StudioError(
      'STUDIO_BAD_REQUEST',
      `request body: "name" must be one line of at most ${MAX_RUN_NAME} characters (the run's name in the runs pane)`,
    );
  return name.trim() || undefined;
}

/** The calls waiting in this studio and, with a store, the store's pending approvals (read now). */
async function listApprovals(context: StudioContext): Promise<ApprovalListView> {
  const local = context.approvals.list();
  if (!context.store) return { approvals: local };
  const stored = await context.store.inbox.list();
  const problem = context.store.inbox.problem;
  return { approvals: [...local, ...stored], store: { url: context.store.label, ...(problem ? { problem } : {}) } };
}

async function spaceInfo(context: StudioContext): Promise<SpaceView> {
  const { config } = context;
  return {
    root: config.root,
    outDir: config.outDir,
    runsDir: context.runsDir,
    agents: config.agents.length,
    ...(context.store ? { store: await storeInfo(context.store) } : {}),
    model: {
      configured: Boolean(config.model.baseURL || config.model.apiKey || process.env.OPENAI_API_KEY || process.env.AGENT_SPACES_BASE_URL),
    },
  };
}

/** The store's address (no password) and its live workers: none alive means runs wait in the queue. */
async function storeInfo(store: StudioStore): Promise<NonNullable<SpaceView['store']>> {
  try {
    return { url: store.label, workers: await store.monitor.liveWorkers() };
  } catch (error) {
    return { url: store.label, problem: errorMessage(error) };
  }
}
