// The studio's API over real HTTP on the example space: guards, every pane's calls, approvals over
// server-sent events, atomic agent saves, the run folder.
import { request as httpRequest } from 'node:http';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { callReply, startScriptedModelServer } from '../../test/support/scripted-model-server.js';
import { makeStudioSpace, recordTask, type StudioSpace } from '../test-support/studio-space.js';
import { startStudio, type RunningStudio } from './index.js';

let space: StudioSpace;
let studio: RunningStudio;
const savedKey = process.env.OPENAI_API_KEY;
const savedBaseUrl = process.env.AGENT_SPACES_BASE_URL;

async function call<T = Record<string, unknown>>(
  method: string,
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${studio.origin}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${studio.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** A raw request, for headers fetch will not let us set (Host). */
function rawGet(pathname: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const url = new URL(studio.origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path: pathname, headers }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** Reads the event stream until an event of `type` arrives. */
async function nextEvent(type: string, trigger: () => void): Promise<Record<string, unknown>> {
  const response = await fetch(`${studio.origin}/api/events?token=${encodeURIComponent(studio.token)}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  trigger();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream ended before a "${type}" event`);
      buffer += decoder.decode(value, { stream: true });
      for (const frame of buffer.split('\n\n')) {
        const match = new RegExp(`^event: ${type}\\ndata: (.*)$`, 'm').exec(frame);
        if (match?.[1]) return JSON.parse(match[1]) as Record<string, unknown>;
      }
    }
  } finally {
    await reader.cancel();
  }
}

beforeAll(async () => {
  delete process.env.OPENAI_API_KEY;
  delete process.env.AGENT_SPACES_BASE_URL;
  space = await makeStudioSpace('studio-api');
  Object.assign(process.env, space.env);
  await recordTask(space.root);
  const uiDir = path.join(space.root, 'ui');
  await mkdir(path.join(uiDir, 'assets'), { recursive: true });
  await writeFile(path.join(uiDir, 'index.html'), '<!doctype html><title>studio test page</title>');
  await writeFile(path.join(uiDir, 'assets', 'app.js'), 'export {};');
  studio = await startStudio({ openSpace, cwd: space.root, uiDir });
}, 120_000);

afterAll(async () => {
  await studio?.close();
  if (savedKey !== undefined) process.env.OPENAI_API_KEY = savedKey;
  if (savedBaseUrl !== undefined) process.env.AGENT_SPACES_BASE_URL = savedBaseUrl;
});

describe('the studio server guards', () => {
  it('binds loopback and prints an address carrying the token in its fragment', () => {
    expect(studio.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(studio.url).toBe(`${studio.origin}/#token=${studio.token}`);
    expect(studio.token.length).toBeGreaterThanOrEqual(40);
  });

  it('refuses API calls without the token or with a wrong one', async () => {
    expect((await call('GET', '/api/space', undefined, { authorization: '' })).status).toBe(401);
    expect((await call('GET', '/api/space', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await fetch(`${studio.origin}/api/events?token=wrong`)).status).toBe(401);
    expect((await call('GET', '/api/space')).status).toBe(200);
  });

  it('refuses another Host (DNS rebinding) and another Origin, even with the token', async () => {
    const rebound = await rawGet('/api/space', { host: 'attacker.example', authorization: `Bearer ${studio.token}` });
    expect(rebound.status).toBe(403);
    expect(rebound.text).toContain('bound to loopback');
    const page = await rawGet('/', { host: 'attacker.example' });
    expect(page.status).toBe(403);
    const crossOrigin = await call('POST', '/api/run', { code: 'export default 1;' }, { origin: 'http://evil.example' });
    expect(crossOrigin.status).toBe(403);
  });

  it('caps request bodies and takes JSON only', async () => {
    const large = await call('POST', '/api/check', { code: 'x'.repeat(1024 * 1024 + 10) });
    expect(large.status).toBe(413);
    const form = await fetch(`${studio.origin}/api/check`, {
      method: 'POST',
      headers: { authorization: `Bearer ${studio.token}`, 'content-type': 'text/plain' },
      body: 'code',
    });
    expect(form.status).toBe(415);
  });

  it('serves the UI with a strict content security policy, never a file outside it', async () => {
    const page = await fetch(`${studio.origin}/`);
    expect(await page.text()).toContain('studio test page');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await fetch(`${studio.origin}/assets/app.js`)).headers.get('content-type')).toMatch(/text\/javascript/);
    const escaped = await rawGet('/../agent-spaces.config.json', {});
    expect(escaped.text).toContain('studio test page');
    const encoded = await rawGet('/%2e%2e/agent-spaces.config.json', {});
    expect(encoded.text).toContain('studio test page');
  });
});

describe('the studio API', () => {
  it('lists modules with declarations, schemas, flags and the build report', async () => {
    const { body } = await call<{
      modules: {
        module: string;
        declarations: string;
        source: { kind: string };
        functions: { id: string; requiresApproval: boolean; inputSchema: unknown }[];
      }[];
      build: { sources: unknown[] };
    }>('GET', '/api/capabilities');
    const crm = body.modules.find((module) => module.module === 'crm');
    expect(crm?.source.kind).toBe('typescript');
    expect(crm?.declarations).toContain('createTicket');
    expect(crm?.functions.find((fn) => fn.id === 'crm.createTicket')?.requiresApproval).toBe(true);
    expect(body.modules.some((module) => module.module === 'agent-station-guide')).toBe(true);
    expect(body.build.sources.length).toBeGreaterThan(0);
  });

  it("searches as the planner's search_tools does", async () => {
    const { body } = await call<{ matches: { id: string }[] }>('GET', '/api/search?q=schedule&detail=names');
    expect(body.matches[0]?.id).toBe('train-schedule.getSchedule');
    expect((await call('GET', '/api/search?q=x&detail=everything')).status).toBe(400);
  });

  it('type-checks a program with the sandbox checker and runs it with a timeline of its calls', async () => {
    const checked = await call<{ diagnostics: { line: number; code: number }[] }>('POST', '/api/check', {
      code: "import { crm } from '@capabilities/crm';\nconst n: number = await crm.searchCustomers({ query: 'acme' });",
    });
    expect(checked.body.diagnostics).toEqual([expect.objectContaining({ line: 2, code: 2322 })]);
    const run = await call<{
      runId: string;
      result: { success: boolean; result: unknown };
      calls: { capability: string; function: string; durationMs: number; ok: boolean }[];
    }>('POST', '/api/run', {
      code: "import { getWeather } from '@capabilities/get-weather';\nconst [a, b] = await Promise.all([getWeather({ location: 'London' }), getWeather({ location: 'Tokyo' })]);\nexport default [a.location, b.location];",
    });
    expect(run.body.result).toMatchObject({ success: true });
    expect(run.body.calls).toHaveLength(2);
    expect(run.body.calls.every((entry) => entry.ok && entry.durationMs >= 0)).toBe(true);
    const record = await call<{ kind: string; code: string }>('GET', `/api/runs/${run.body.runId}`);
    expect(record.body.kind).toBe('code-run');
    const failed = await call<{ result: { success: boolean; error: { code: string; message: string; line: number } } }>(
      'POST',
      '/api/run',
      { code: "const a = 1;\nthrow new Error('boom at ' + a);" },
    );
    expect(failed.body.result.success).toBe(false);
    expect(failed.body.result.error).toMatchObject({ code: 'RUNTIME_ERROR', message: 'boom at 1', line: 2 });
  });

  it('reports a refused import (node:fs) at its line with no fake TS0 code, and still checks the rest', async () => {
    const code =
      "import { crm } from '@capabilities/crm';\nimport fs from 'node:fs';\nconst n: number = await crm.searchCustomers({ query: 'acme' });\nexport default [n, fs];";
    const { body } = await call<{ diagnostics: { line: number; column: number; code?: number; message: string }[] }>('POST', '/api/check', {
      code,
    });
    const refusal = body.diagnostics.find((diagnostic) => diagnostic.line === 2);
    expect(refusal?.message).toContain('node:fs');
    expect(refusal).not.toHaveProperty('code');
    expect(body.diagnostics.some((diagnostic) => diagnostic.code === 0 || (diagnostic.code ?? 1) <= 0)).toBe(false);
    expect(JSON.stringify(body)).not.toContain('TS0');
    // The type error after the refused line is still found, with its TypeScript code; fs is not reported missing.
    expect(body.diagnostics).toContainEqual(expect.objectContaining({ line: 3, code: 2322 }));
    expect(body.diagnostics.map((diagnostic) => diagnostic.message).join('\n')).not.toContain("Cannot find name 'fs'");
  });

  it("offers a starter program from the space's own first capability that type-checks clean", async () => {
    const { body } = await call<{ code: string; from?: { module: string; function: string }; hint: string }>('GET', '/api/starter');
    expect(body.from).toBeDefined();
    expect(body.from?.module).not.toMatch(/^std-|^task-storage$/);
    expect(body.code).toContain(`from '@capabilities/${body.from?.module}'`);
    expect((await call<{ diagnostics: unknown[] }>('POST', '/api/check', { code: body.code })).body.diagnostics).toEqual([]);
  });

  it('lists a code run by the name it was given, else by its first call; refuses a name of many lines', async () => {
    const code = "import { getWeather } from '@capabilities/get-weather';\nexport default await getWeather({ location: 'Oslo' });";
    const named = await call<{ runId: string; name?: string }>('POST', '/api/run', { code, name: '  Oslo weather  ' });
    expect(named.body.name).toBe('Oslo weather');
    const unnamed = await call<{ runId: string }>('POST', '/api/run', { code });
    const refused = await call<{ error: { message: string } }>('POST', '/api/run', { code, name: 'two\nlines' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('"name" must be one line');
    const { body } = await call<{ runs: { id: string; title: string }[] }>('GET', '/api/runs');
    expect(body.runs.find((run) => run.id === named.body.runId)?.title).toBe('Oslo weather');
    expect(body.runs.find((run) => run.id === unnamed.body.runId)?.title).toBe('get-weather.getWeather({"location":"Oslo"})');
  });

  it("validates arguments with the bridge's ajv and calls a function directly", async () => {
    const invalid = await call<{ issues: { path: string; message: string }[] }>('POST', '/api/validate', {
      id: 'crm.searchCustomers',
      arguments: { query: '', limit: 'x' },
    });
    expect(invalid.body.issues.map((issue) => issue.path).sort()).toEqual(['limit', 'query']);
    expect(
      (await call<{ issues: unknown[] }>('POST', '/api/validate', { id: 'crm.searchCustomers', arguments: { query: 'acme' } })).body.issues,
    ).toEqual([]);
    const answer = await call<{ response: { ok: boolean; value: { name: string }[] } }>('POST', '/api/call', {
      id: 'crm.searchCustomers',
      arguments: { query: 'acme' },
    });
    expect(answer.body.response.ok).toBe(true);
    expect(answer.body.response.value.map((customer) => customer.name)).toEqual(['Acme Corp', 'Acme Labs']);
    const unknown = await call('POST', '/api/validate', { id: 'crm.nothing', arguments: {} });
    expect(unknown.status).toBe(404);
  });

  it('holds a call that needs approval in the inbox until it is approved (live over SSE)', async () => {
    let running: Promise<{ body: { result: { success: boolean; result: { id: string } } } }> | undefined;
    const event = await nextEvent('approval-required', () => {
      running = call('POST', '/api/run', {
        code: "import { crm } from '@capabilities/crm';\nexport default await crm.createTicket({ customerId: 'c-001', subject: 'Studio test', priority: 'high' });",
      });
    });
    const approval = event.approval as { id: string; params: unknown; capability: string; function: string };
    expect(approval).toMatchObject({
      capability: 'crm',
      function: 'createTicket',
      params: { customerId: 'c-001', subject: 'Studio test', priority: 'high' },
    });
    const listed = await call<{ approvals: { id: string }[] }>('GET', '/api/approvals');
    expect(listed.body.approvals.map((entry) => entry.id)).toEqual([approval.id]);
    expect((await call('POST', `/api/approvals/${approval.id}`, { approved: true })).status).toBe(200);
    const finished = await running;
    expect(finished?.body.result.success).toBe(true);
    expect(finished?.body.result.result.id).toMatch(/^t-\d+/);
    expect((await call('POST', `/api/approvals/${approval.id}`, { approved: true })).status).toBe(404);
  });
});

/** A call of an attached process (`run --studio`), posted as the CLI posts it; its answer is a stream of JSON lines. */
function askAsAttached(
  body: unknown,
  token = studio.token,
): Promise<{ status: number; lines: AsyncIterator<string>; text(): Promise<string>; close(): void }> {
  const url = new URL(studio.origin);
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: '/api/approvals/external',
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (response) => {
        response.setEncoding('utf8');
        const lines = (async function* () {
          let buffer = '';
          for await (const chunk of response) {
            buffer += chunk as string;
            let end: number;
            while ((end = buffer.indexOf('\n')) >= 0) {
              yield buffer.slice(0, end);
              buffer = buffer.slice(end + 1);
            }
          }
        })();
        const all = async (): Promise<string> => {
          let whole = '';
          for await (const chunk of response) whole += chunk as string;
          return whole;
        };
        resolve({ status: response.statusCode ?? 0, lines, text: all, close: () => request.destroy() });
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

const ATTACHED_CALL = {
  request: {
    capability: 'crm',
    function: 'createTicket',
    params: { customerId: 'c-001', subject: 'From a CLI' },
    message: 'Create a ticket?',
    timestamp: new Date().toISOString(),
  },
  origin: { kind: 'task', pid: 4242, cwd: '/somewhere', detail: 'file a ticket' },
};

/** Counts `approval-decided` events of the event stream until `count` of them arrived (the stream is opened first). */
async function decidedEvents(count: number): Promise<{ done: Promise<Record<string, unknown>[]> }> {
  const response = await fetch(`${studio.origin}/api/events?token=${encodeURIComponent(studio.token)}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    const found: Record<string, unknown>[] = [];
    let buffer = '';
    while (found.length < count) {
      const { value, done: ended } = await reader.read();
      if (ended) throw new Error(`the event stream ended after ${found.length} of ${count} approval-decided events`);
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const match = /^event: approval-decided\ndata: (.*)$/m.exec(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (match?.[1]) found.push(JSON.parse(match[1]) as Record<string, unknown>);
      }
    }
    await reader.cancel();
    return found;
  })();
  return { done };
}

describe('calls of attached processes (run, task, serve with --studio)', () => {
  it('takes them with the token only, and checks what it is sent', async () => {
    const unauthorized = await askAsAttached(ATTACHED_CALL, 'wrong');
    expect(unauthorized.status).toBe(401);
    const badOrigin = await askAsAttached({ ...ATTACHED_CALL, origin: { kind: 'browser', pid: 1, cwd: '/' } });
    expect(badOrigin.status).toBe(400);
    expect((JSON.parse(await badOrigin.text()) as { error: { message: string } }).error.message).toBe(
      'request body: "origin.kind" must be "run", "task" or "serve"',
    );
    const noRequest = await askAsAttached({ origin: ATTACHED_CALL.origin });
    expect(noRequest.status).toBe(400);
  });

  it('holds the answer stream open until a person decides, and shows where the call came from', async () => {
    const asked = await askAsAttached(ATTACHED_CALL);
    expect(asked.status).toBe(200);
    const first = JSON.parse((await asked.lines.next()).value as string) as { type: string; id: string };
    expect(first.type).toBe('waiting');
    const listed = await call<{ approvals: { id: string; origin: unknown; params: unknown }[] }>('GET', '/api/approvals');
    expect(listed.body.approvals.find((entry) => entry.id === first.id)).toMatchObject({
      origin: ATTACHED_CALL.origin,
      params: ATTACHED_CALL.request.params,
    });
    expect((await call('POST', `/api/approvals/${first.id}`, { approved: false, reason: 'not now' })).status).toBe(200);
    expect(JSON.parse((await asked.lines.next()).value as string)).toEqual({ type: 'decided', approved: false, reason: 'not now' });
    expect((await asked.lines.next()).done).toBe(true);
  });

  it('holds at most 100 of them, and a call whose asker hangs up leaves the inbox', async () => {
    const held = await Promise.all(Array.from({ length: 100 }, () => askAsAttached(ATTACHED_CALL)));
    expect(held.map((answer) => answer.status)).toEqual(Array.from({ length: 100 }, () => 200));
    await Promise.all(held.map((answer) => answer.lines.next()));
    const refused = await askAsAttached(ATTACHED_CALL);
    expect(refused.status).toBe(429);
    expect((JSON.parse(await refused.text()) as { error: { message: string } }).error.message).toContain(
      'already holds 100 calls of attached processes',
    );
    const { done } = await decidedEvents(100);
    for (const answer of held) answer.close();
    const withdrawn = await done;
    expect(withdrawn.every((event) => event.approved === false && String(event.reason).includes('task (pid 4242) stopped waiting'))).toBe(
      true,
    );
    expect((await call<{ approvals: unknown[] }>('GET', '/api/approvals')).body.approvals).toEqual([]);
  });
});

describe('the agent tool editor API', () => {
  it('checks a tool with the loader: unknown placeholders are errors, unused parameters warnings, a preview filled', async () => {
    const tool = {
      name: 'plan',
      description: 'Plans',
      parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
      prompt: 'Plan {city} for {tool.name}, budget {budget}',
    };
    const { body } = await call<{
      errors: { path: string; message: string }[];
      unknownPlaceholders: string[];
      warnings: string[];
      preview: string;
    }>('POST', '/api/agents/0/check', { position: 0, tool, sample: { city: 'Harbor' } });
    expect(body.unknownPlaceholders).toEqual(['budget']);
    expect(body.errors).toEqual([
      expect.objectContaining({ path: 'prompt', message: expect.stringContaining('{budget} names no parameter') }),
    ]);
    expect(body.warnings).toEqual([expect.stringContaining('"days"')]);
    expect(body.preview).toContain('Plan Harbor for plan');
  });

  it('saves tools atomically, keeping fields it does not know, and refuses a file that would not load', async () => {
    const file = path.join(space.agentDir, 'tsagent.json');
    const original = JSON.parse(await readFile(file, 'utf8')) as { metadata: { tools: Record<string, unknown>[] } } & Record<
      string,
      unknown
    >;
    await writeFile(
      file,
      JSON.stringify({ ...original, 'x-studio-test': { keep: true }, metadata: { ...original.metadata, 'x-note': 'kept' } }),
    );
    const tools = original.metadata.tools.map((tool, index) =>
      index === 0 ? { ...tool, description: 'Edited in the studio', 'x-tool-extra': 1 } : tool,
    );
    expect((await call('PUT', '/api/agents/0/tools', { tools })).status).toBe(200);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { metadata: { tools: Record<string, unknown>[]; 'x-note': string } } & Record<
      string,
      unknown
    >;
    expect(saved['x-studio-test']).toEqual({ keep: true });
    expect(saved.metadata['x-note']).toBe('kept');
    expect(saved.metadata.tools[0]).toMatchObject({ description: 'Edited in the studio', 'x-tool-extra': 1 });
    expect(saved.providers).toEqual(original.providers);

    const before = await readFile(file, 'utf8');
    const refused = await call<{ error: { code: string; message: string } }>('PUT', '/api/agents/0/tools', {
      tools: [{ ...tools[0], prompt: 'about {nothing}' }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toContain('{nothing}');
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('says exactly what to set when a tool test has no model', async () => {
    const { body: agent } = await call<{ tools: unknown[] }>('GET', '/api/agents/0');
    const refused = await call<{ error: { code: string; message: string } }>('POST', '/api/agents/0/test', {
      tool: agent.tools[0],
      arguments: { name: 'Harbor' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('STUDIO_NO_MODEL');
    expect(refused.body.error.message).toMatch(/OPENAI_API_KEY/);
    expect(refused.body.error.message).toMatch(/AGENT_SPACES_BASE_URL/);
  });
});

describe('testing a tool with a model', () => {
  it('runs a session of the agent on the filled prompt and shows its steps and answer', async () => {
    const model = await startScriptedModelServer([
      callReply('finish', { summary: 'Harbor has step-free access.', result: 'Harbor: lines A and C, step-free.' }),
    ]);
    process.env.AGENT_SPACES_BASE_URL = model.baseURL;
    try {
      const { body: agent } = await call<{ tools: Record<string, unknown>[] }>('GET', '/api/agents/0');
      const tool = { ...agent.tools[0], prompt: 'Describe {name} briefly.' };
      const { status, body } = await call<{ prompt: string; answer: string; events: { type: string }[] }>('POST', '/api/agents/0/test', {
        tool,
        arguments: { name: 'Harbor' },
      });
      expect(status).toBe(200);
      expect(body.prompt).toBe('Describe Harbor briefly.');
      expect(body.answer).toBe('Harbor: lines A and C, step-free.');
      expect(body.events.map((event) => event.type)).toEqual(expect.arrayContaining(['task-start', 'model-reply', 'task-finish']));
      const sent = JSON.stringify(model.requests.at(-1)?.body?.messages);
      expect(sent).toContain('Describe Harbor briefly.');
    } finally {
      delete process.env.AGENT_SPACES_BASE_URL;
      await model.close();
    }
  }, 120_000);
});

describe('a playground task (no store: in the studio)', () => {
  it('says what to set without a model; with one, runs the task, streams its steps and leaves its trace in the run folder', async () => {
    const refused = await call<{ error: { code: string; message: string } }>('POST', '/api/task', { task: 'Which trains leave Central?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'STUDIO_NO_MODEL', message: expect.stringContaining('OPENAI_API_KEY') });
    const model = await startScriptedModelServer([
      callReply('call_tool', { name: 'train-schedule.getSchedule', arguments: { station: 'Central' } }),
      callReply('finish', { summary: 'Three trains leave Central.', result: { trains: 3 } }),
    ]);
    process.env.AGENT_SPACES_BASE_URL = model.baseURL;
    try {
      let answer:
        | Promise<{ status: number; body: { taskId: string; success: boolean; summary: string; result: unknown; steps: number } }>
        | undefined;
      const first = await nextEvent('task-event', () => {
        answer = call('POST', '/api/task', { task: 'Which trains leave Central?' });
      });
      expect((first.event as { type: string }).type).toBe('task-start');
      const { status, body } = await (answer as NonNullable<typeof answer>);
      expect(status).toBe(200);
      expect(body).toMatchObject({ success: true, summary: 'Three trains leave Central.', result: { trains: 3 }, steps: 2 });
      expect(first.runId).toBe(body.taskId);
      const trace = await call<{ kind: string; task: string }>('GET', `/api/runs/${body.taskId}`);
      expect(trace.body).toMatchObject({ kind: 'task', task: 'Which trains leave Central?' });
    } finally {
      delete process.env.AGENT_SPACES_BASE_URL;
      await model.close();
    }
  }, 120_000);
});

describe('the runs API', () => {
  it('lists a planner task of the run folder and opens its trace: steps, replies, calls, usage', async () => {
    const { body } = await call<{ runs: { id: string; kind: string; success?: boolean; steps?: number; costUsd?: number }[] }>(
      'GET',
      '/api/runs',
    );
    const task = body.runs.find((run) => run.id === 'task-central');
    expect(task).toMatchObject({ kind: 'task', success: true, steps: 3 });
    expect(task?.costUsd).toBeTypeOf('number'); // the scripted model has no price: $0, but the cost is read from the trace
    const trace = await call<{ task: string; events: { type: string }[] }>('GET', '/api/runs/task-central');
    expect(trace.body.task).toBe('Which destinations does Central serve?');
    expect(trace.body.events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['task-start', 'model-reply', 'tool-call', 'task-finish']),
    );
    expect((await call('GET', '/api/runs/..%2F..%2Fetc')).status).toBe(400);
  });

  it("takes a task's outcome from its last attempt: one taken over by another worker and not finished there has none yet", async () => {
    const { body } = await call<{ runsDir: string }>('GET', '/api/runs');
    const lines = (await readFile(path.join(body.runsDir, 'task-central', 'trace.jsonl'), 'utf8')).trimEnd().split('\n');
    const start = lines.find((line) => (JSON.parse(line) as { type: string }).type === 'task-start');
    expect(start).toBeDefined();
    // The first attempt finished (its worker stopped before the run recorded it); the second has only started.
    const folder = path.join(body.runsDir, 'task-taken-over');
    await mkdir(folder, { recursive: true });
    try {
      await writeFile(path.join(folder, 'trace.jsonl'), `${[...lines, start].join('\n')}\n`);
      const listed = await call<{ runs: { id: string; kind: string; success?: boolean }[] }>('GET', '/api/runs');
      const run = listed.body.runs.find((entry) => entry.id === 'task-taken-over');
      expect(run).toMatchObject({ kind: 'task' });
      expect(run).not.toHaveProperty('success');
      expect(listed.body.runs.find((entry) => entry.id === 'task-central')).toMatchObject({ success: true });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('replays a task from its recorded replies, as a new run with its own trace', async () => {
    const { status, body } = await call<{ id: string; success: boolean; summary: string }>('POST', '/api/runs/task-central/replay', {});
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, summary: 'Central has trains to three destinations.' });
    const replayed = await call<{ kind: string; task: string }>('GET', `/api/runs/${body.id}`);
    expect(replayed.body).toMatchObject({ kind: 'task', task: 'Which destinations does Central serve?' });
  });
});
