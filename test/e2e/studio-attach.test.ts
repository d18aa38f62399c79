// `agent-spaces run --studio <address>` through the real bin against a studio started here on a copy of
// the example space: the call that requires approval waits in the studio's inbox, where it is approved
// or denied over the studio's HTTP API; a studio that cannot be reached, or a run that is stopped while
// it waits, never leaves a call approved. No timing: each step waits for the event it expects.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { createStudioApprovals, parseStudioAddress } from '../../cli/studio-approvals.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { callReply, startScriptedModelServer } from '../support/scripted-model-server.js';
import { makeStudioSpace, REPO, type StudioSpace } from '../../studio/test-support/studio-space.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

/** Creates a ticket (requires approval) and returns what happened, the denial's code and message included. */
const PROGRAM = `import { crm } from '@capabilities/crm';
let outcome: { approved: boolean; ticketId?: string; code?: string; message?: string };
try {
  const ticket = await crm.createTicket({ customerId: 'c-001', subject: 'Asked from the CLI', priority: 'high' });
  outcome = { approved: true, ticketId: ticket.id };
} catch (error) {
  outcome = { approved: false, code: (error as { code?: string }).code, message: (error as Error).message };
}
export default outcome;
`;

interface Outcome {
  approved: boolean;
  ticketId?: string;
  code?: string;
  message?: string;
}

let space: StudioSpace;
let studio: RunningStudio;
let program: string;
const events: Record<string, unknown>[] = [];
const waiters: { match: (event: Record<string, unknown>) => boolean; resolve: (event: Record<string, unknown>) => void }[] = [];
let stopEvents: (() => Promise<void>) | undefined;

function runWithStudio(address: string) {
  return execa(process.execPath, [BIN, 'run', program, '--json', '--studio', address], {
    cwd: space.root,
    env: space.env,
    reject: false,
    timeout: 180_000,
    stdin: 'ignore',
  });
}

/** The first studio event (seen already or to come) that `match` accepts. */
function studioEvent(match: (event: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  const seen = events.find(match);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => waiters.push({ match, resolve }));
}

/** Follows the studio's event stream for the whole file, as the inbox page does. */
async function followEvents(): Promise<() => Promise<void>> {
  const response = await fetch(`${studio.origin}/api/events?token=${encodeURIComponent(studio.token)}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
        buffer = buffer.slice(end + 2);
        if (!data) continue;
        const event = JSON.parse(data) as Record<string, unknown>;
        events.push(event);
        for (const waiter of waiters.filter((candidate) => candidate.match(event))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    }
  })();
  return async () => {
    await reader.cancel().catch(() => undefined);
    await reading;
  };
}

/** The next call of `agent-spaces run` that arrives in the inbox, not one seen before. */
function nextAttachedCall(seen: Set<string>): Promise<{
  id: string;
  origin: { kind: string; pid: number; cwd: string; detail?: string };
  params: unknown;
  capability: string;
  function: string;
}> {
  return studioEvent((event) => {
    const approval = event.approval as { id?: string; origin?: { kind?: string } } | undefined;
    return event.type === 'approval-required' && approval?.origin?.kind === 'run' && !seen.has(approval.id ?? '');
  }).then((event) => {
    const approval = event.approval as Awaited<ReturnType<typeof nextAttachedCall>>;
    seen.add(approval.id);
    return approval;
  });
}

async function decide(id: string, approved: boolean, reason?: string): Promise<number> {
  const response = await fetch(`${studio.origin}/api/approvals/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${studio.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ approved, ...(reason ? { reason } : {}) }),
  });
  return response.status;
}

beforeAll(async () => {
  space = await makeStudioSpace('studio-attach');
  Object.assign(process.env, space.env);
  // The UI is not under test here: a page stands in for it.
  const uiDir = path.join(space.root, 'ui');
  await mkdir(uiDir, { recursive: true });
  await writeFile(path.join(uiDir, 'index.html'), '<!doctype html><title>studio test page</title>');
  program = path.join(space.root, 'create-ticket.ts');
  await writeFile(program, PROGRAM);
  studio = await startStudio({ openSpace, cwd: space.root, uiDir });
  stopEvents = await followEvents();
}, 180_000);

afterAll(async () => {
  await stopEvents?.();
  await studio?.close();
});

// Each case starts the CLI (two Node processes and a sandbox): generous on a busy machine, nothing timed.
describe('agent-spaces run --studio', { timeout: 240_000 }, () => {
  const seen = new Set<string>();

  it('waits in the studio inbox, with its origin and exact arguments, and goes on when approved there', async () => {
    const run = runWithStudio(studio.url);
    const call = await nextAttachedCall(seen);
    expect(call).toMatchObject({
      capability: 'crm',
      function: 'createTicket',
      params: { customerId: 'c-001', subject: 'Asked from the CLI', priority: 'high' },
    });
    expect(call.origin).toMatchObject({ kind: 'run', cwd: space.root, detail: program });
    expect(call.origin.pid).toBeGreaterThan(0);
    const listed = (await (
      await fetch(`${studio.origin}/api/approvals`, { headers: { authorization: `Bearer ${studio.token}` } })
    ).json()) as { approvals: { id: string }[] };
    expect(listed.approvals.map((entry) => entry.id)).toContain(call.id);
    expect(await decide(call.id, true)).toBe(200);
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { result: Outcome }).result).toMatchObject({
      approved: true,
      ticketId: expect.stringMatching(/^t-/),
    });
    expect(result.stderr).toContain(`approvals: asked in the studio at ${studio.origin}`);
    expect(result.stderr).not.toContain(studio.token);
  });

  it('is denied with the reason the person gave in the studio', async () => {
    const run = runWithStudio(studio.url);
    const call = await nextAttachedCall(seen);
    expect(await decide(call.id, false, 'not during the freeze')).toBe(200);
    const result = await run;
    const outcome = (JSON.parse(result.stdout) as { result: Outcome }).result;
    expect(outcome).toMatchObject({ approved: false, code: 'APPROVAL_DENIED' });
    expect(outcome.message).toContain(`denied in the studio at ${studio.origin}: not during the freeze`);
  });

  it('is denied, naming the studio, when the studio cannot be reached', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await runWithStudio(`http://127.0.0.1:${port}/#token=not-a-studio`);
    const outcome = (JSON.parse(result.stdout) as { result: Outcome }).result;
    expect(outcome).toMatchObject({ approved: false, code: 'APPROVAL_DENIED' });
    expect(outcome.message).toContain(`the studio at http://127.0.0.1:${port} could not be reached (ECONNREFUSED), so the call was denied`);
  });

  it('is denied, naming the studio, when the studio goes away before anyone decides', async () => {
    // A server that takes the call as a studio does, then drops the connection (a studio that was killed).
    const vanishing = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      response.write(`${JSON.stringify({ type: 'waiting', id: 'gone' })}\n`, () => response.socket?.destroy());
    });
    vanishing.listen(0, '127.0.0.1');
    await once(vanishing, 'listening');
    const { port } = vanishing.address() as AddressInfo;
    try {
      const result = await runWithStudio(`http://127.0.0.1:${port}/#token=t`);
      const outcome = (JSON.parse(result.stdout) as { result: Outcome }).result;
      expect(outcome).toMatchObject({ approved: false, code: 'APPROVAL_DENIED' });
      expect(outcome.message).toContain(`the studio at http://127.0.0.1:${port} went away before anyone decided, so the call was denied`);
    } finally {
      vanishing.closeAllConnections();
      await new Promise<void>((resolve) => vanishing.close(() => resolve()));
    }
  });

  it('is denied when the token is wrong, with the studio refusal in the reason', async () => {
    const result = await runWithStudio(`${studio.origin}/#token=wrong`);
    const outcome = (JSON.parse(result.stdout) as { result: Outcome }).result;
    expect(outcome).toMatchObject({ approved: false, code: 'APPROVAL_DENIED' });
    expect(outcome.message).toContain(`the studio at ${studio.origin} refused the request (HTTP 401: missing or wrong token`);
  });

  it('leaves the inbox when the run is stopped while it waits', async () => {
    const run = runWithStudio(studio.url);
    const call = await nextAttachedCall(seen);
    run.kill('SIGTERM');
    const withdrawn = await studioEvent((event) => event.type === 'approval-decided' && event.id === call.id);
    expect(withdrawn).toMatchObject({ approved: false, reason: expect.stringContaining('stopped waiting') });
    await run;
    expect(await decide(call.id, true)).toBe(404);
  });

  it("takes the call out of the inbox when the call's own signal ends it while it waits", async () => {
    const approvals = createStudioApprovals(parseStudioAddress(studio.url), { kind: 'task', cwd: space.root, detail: 'a direct call' });
    const host = await openSpace({
      cwd: space.root,
      isolation: 'in-process',
      approvalHandler: approvals.handler,
      onEvent: approvals.onEvent,
    });
    try {
      const controller = new AbortController();
      const calling = host.callTool(
        'crm.createTicket',
        { customerId: 'c-002', subject: 'Cancelled while waiting', priority: 'low' },
        { signal: controller.signal },
      );
      const outcome = calling.then(
        () => 'approved',
        (error: { code?: string }) => error.code,
      );
      const waiting = await studioEvent(
        (event) =>
          event.type === 'approval-required' && (event.approval as { origin: { detail?: string } }).origin.detail === 'a direct call',
      );
      const id = (waiting.approval as { id: string }).id;
      controller.abort();
      expect(await outcome).toBe('CANCELLED');
      const withdrawn = await studioEvent((event) => event.type === 'approval-decided' && event.id === id);
      expect(withdrawn).toMatchObject({ approved: false, reason: expect.stringContaining(`task (pid ${process.pid}) stopped waiting`) });
    } finally {
      approvals.close();
      await host.close();
    }
  });

  it("never sends the host's secrets: arguments are redacted before they leave the process", async () => {
    const secret = 'hunter2-host-secret-value';
    const approvals = createStudioApprovals(parseStudioAddress(studio.url), {
      kind: 'task',
      cwd: space.root,
      detail: 'a secret in the arguments',
    });
    const host = await openSpace({
      cwd: space.root,
      isolation: 'in-process',
      approvalHandler: approvals.handler,
      onEvent: approvals.onEvent,
    });
    approvals.useSecrets([secret]);
    try {
      const outcome = host.callTool('crm.createTicket', { customerId: 'c-002', subject: `key ${secret}`, priority: 'low' }).then(
        () => 'approved',
        (error: { code?: string }) => error.code,
      );
      const waiting = await studioEvent(
        (event) =>
          event.type === 'approval-required' &&
          (event.approval as { origin: { detail?: string } }).origin.detail === 'a secret in the arguments',
      );
      const approval = waiting.approval as { id: string; params: { subject: string } };
      expect(JSON.stringify(approval.params)).not.toContain(secret);
      expect(approval.params.subject).toMatch(/^key /);
      expect(await decide(approval.id, false)).toBe(200);
      expect(await outcome).toBe('APPROVAL_DENIED');
    } finally {
      approvals.close();
      await host.close();
    }
  });

  it("serve --studio: an MCP client's call waits in the studio inbox (not in an elicitation) and goes on when approved", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--cwd', space.root, '--studio', studio.url],
      env: { ...space.env, PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'e2e', version: '1' }, { capabilities: { elicitation: {} } });
    const elicited: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params.message);
      return { action: 'decline' };
    });
    await client.connect(transport);
    try {
      const running = client.callTool(
        {
          name: 'execute_code',
          arguments: {
            code: "import { crm } from '@capabilities/crm';\nconst t = await crm.createTicket({ customerId: 'c-002', subject: 'Served', priority: 'high' });\nexport default t.id;",
          },
        },
        undefined,
        { timeout: 600_000 },
      );
      // Read in any case, so a failed step below leaves no unhandled rejection behind.
      const finished = running.then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
      const waiting = await studioEvent(
        (event) => event.type === 'approval-required' && (event.approval as { origin: { kind: string } }).origin.kind === 'serve',
      );
      const approval = waiting.approval as { id: string; origin: { cwd: string; detail?: string }; params: unknown };
      expect(approval.origin).toMatchObject({ cwd: space.root, detail: 'MCP on stdio' });
      expect(approval.params).toEqual({ customerId: 'c-002', subject: 'Served', priority: 'high' });
      expect(await decide(approval.id, true)).toBe(200);
      const { result, error } = (await finished) as { result?: { structuredContent?: unknown }; error?: unknown };
      expect(error).toBeUndefined();
      expect(result?.structuredContent).toMatchObject({ success: true, result: expect.stringMatching(/^t-/) });
      expect(elicited).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("task with $AGENT_SPACES_STUDIO: the planner's call waits in the studio inbox, shown with the task's words", async () => {
    const model = await startScriptedModelServer([
      callReply('call_tool', { name: 'crm.createTicket', arguments: { customerId: 'c-001', subject: 'Planned', priority: 'low' } }),
      callReply('finish', { summary: 'Filed the ticket.' }),
    ]);
    try {
      const env = {
        ...space.env,
        AGENT_SPACES_STUDIO: studio.url,
        AGENT_SPACES_BASE_URL: model.baseURL,
        AGENT_SPACES_MODEL: 'scripted-model',
        OPENAI_API_KEY: 'test',
      };
      const task = execa(process.execPath, [BIN, 'task', 'File a ticket for Acme', '--json'], {
        cwd: space.root,
        env,
        reject: false,
        timeout: 180_000,
        stdin: 'ignore',
      });
      const waiting = await studioEvent(
        (event) =>
          event.type === 'approval-required' &&
          (event.approval as { origin: { kind: string } }).origin.kind === 'task' &&
          (event.approval as { origin: { detail?: string } }).origin.detail === 'File a ticket for Acme',
      );
      const approval = waiting.approval as { id: string; params: unknown; origin: { cwd: string } };
      expect(approval.params).toEqual({ customerId: 'c-001', subject: 'Planned', priority: 'low' });
      expect(approval.origin.cwd).toBe(space.root);
      expect(await decide(approval.id, true)).toBe(200);
      const result = await task;
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/call crm\.createTicket ok/);
      expect(JSON.parse(result.stdout)).toMatchObject({ success: true, finalSummary: 'Filed the ticket.' });
    } finally {
      await model.close();
    }
  });

  it('refuses an address that is not a loopback studio address before starting', async () => {
    const result = await runWithStudio('http://example.com:4500/#token=abc');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('"example.com" is not a loopback address');
    const tokenless = await runWithStudio(studio.origin);
    expect(tokenless.exitCode).toBe(2);
    expect(tokenless.stderr).toContain('the address has no token');
  });
});
