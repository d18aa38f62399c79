import { checkTool, getAgent, listAgents, saveTools, testTool } from './api-agents.js';
import { listCapabilities, rebuild, search } from './api-capabilities.js';
import { checkProgram, runProgram } from './api-playground.js';
import { getRun, listRuns, replayRun } from './api-runs.js';
import { callFunction, validateArguments } from './api-tester.js';
import type { StudioContext } from './studio-context.js';
import { field, isObject, isString, StudioError } from './studio-error.js';

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
  { method: 'GET', path: /^\/api\/search$/, handle: ({ context, query }) => search(context, query.get('q') ?? '', query.get('detail') ?? 'summary') },
  { method: 'POST', path: /^\/api\/check$/, handle: ({ context, body }) => checkProgram(context, field(body, 'code', isString, 'a string (the program)')) },
  { method: 'POST', path: /^\/api\/run$/, handle: ({ context, body }) => runProgram(context, field(body, 'code', isString, 'a string (the program)')) },
  {
    method: 'POST',
    path: /^\/api\/validate$/,
    handle: ({ context, body }) => validateArguments(context, field(body, 'id', isString, 'a function id "<module>.<function>"'), field(body, 'arguments', isAnything, 'the arguments')),
  },
  {
    method: 'POST',
    path: /^\/api\/call$/,
    handle: ({ context, body }) => callFunction(context, field(body, 'id', isString, 'a function id "<module>.<function>"'), field(body, 'arguments', isAnything, 'the arguments') ?? {}),
  },
  { method: 'GET', path: /^\/api\/agents$/, handle: ({ context }) => listAgents(context) },
  { method: 'GET', path: /^\/api\/agents\/(\d+)$/, handle: ({ context, params }) => getAgent(context, Number(params[0])) },
  {
    method: 'POST',
    path: /^\/api\/agents\/(\d+)\/check$/,
    handle: ({ context, params, body }) =>
      checkTool(context, Number(params[0]), field(body, 'position', isInteger, 'an integer (the tool\'s index, -1 for a new tool)'), field(body, 'tool', isObject, 'a tool object'), isObject(body) ? body.sample : undefined),
  },
  { method: 'PUT', path: /^\/api\/agents\/(\d+)\/tools$/, handle: ({ context, params, body }) => saveTools(context, Number(params[0]), field(body, 'tools', isArray, 'an array of tools')) },
  {
    method: 'POST',
    path: /^\/api\/agents\/(\d+)\/test$/,
    handle: ({ context, params, body }) => testTool(context, Number(params[0]), field(body, 'tool', isObject, 'a tool object'), isObject(body) ? body.arguments : undefined),
  },
  { method: 'GET', path: /^\/api\/runs$/, handle: ({ context }) => listRuns(context) },
  { method: 'GET', path: /^\/api\/runs\/([^/]+)$/, handle: ({ context, params }) => getRun(context, decodeURIComponent(params[0] ?? '')) },
  { method: 'POST', path: /^\/api\/runs\/([^/]+)\/replay$/, handle: ({ context, params }) => replayRun(context, decodeURIComponent(params[0] ?? '')) },
  { method: 'GET', path: /^\/api\/approvals$/, handle: async ({ context }) => ({ approvals: context.approvals.list() }) },
  {
    method: 'POST',
    path: /^\/api\/approvals\/([0-9a-f-]{36})$/,
    handle: async ({ context, params, body }) => {
      const approved = field(body, 'approved', (value): value is boolean => typeof value === 'boolean', 'true or false');
      const reason = isObject(body) && typeof body.reason === 'string' && body.reason !== '' ? body.reason : undefined;
      if (!context.approvals.decide(params[0] ?? '', approved, reason)) throw new StudioError('STUDIO_NOT_FOUND', `no call waiting for approval with id ${params[0]}: it was decided already or its run ended`);
      return { decided: params[0], approved };
    },
  },
];

function spaceInfo(context: StudioContext): unknown {
  const { config } = context;
  return { root: config.root, outDir: config.outDir, runsDir: context.runsDir, agents: config.agents.length, model: { configured: Boolean(config.model.baseURL || config.model.apiKey || process.env.OPENAI_API_KEY || process.env.AGENT_SPACES_BASE_URL) } };
}
