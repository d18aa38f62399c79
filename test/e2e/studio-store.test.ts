// The studio with a store: a real PostgreSQL (a private cluster this file starts), a real worker
// process (`agent-spaces worker`), runs submitted by the studio's playground and from elsewhere (the
// library, as `run --store` does), approvals decided in the inbox (API and a real browser) and with
// the CLI. Nothing is timed: each step waits for the event or the state it expects.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import type { RunResult } from '../../core/index.js';
import { submitRun } from '../../store/index.js';
import { makeDurableSpace, startCli, type CliProcess, type DurableSpace } from '../../store/test-support/durable-space.js';
import { startPostgresCluster, type PostgresCluster } from '../../store/test-support/postgres-cluster.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { ensureUiBuilt } from '../../studio/test-support/studio-space.js';
import { callReply, startScriptedModelServer } from '../support/scripted-model-server.js';

const CHROMIUM = process.env.AGENT_SPACES_CHROMIUM ?? '/usr/bin/chromium';
/** Runs wait for the test (a worker to start, a person to decide): their wall clock must not end them first. */
const LONG = 600_000;
/** The worker's approvals carry a deadline (the inbox shows it), far enough for no test to reach it. */
const APPROVAL_DEADLINE_MS = 24 * 3600_000;

let cluster: PostgresCluster;
let store: string;
let space: DurableSpace;
let studio: RunningStudio;
const processes: CliProcess[] = [];
let stream: EventStream;
/** The model of the worker's planner tasks: one task, one call, finished. */
let model: Awaited<ReturnType<typeof startScriptedModelServer>>;

/** The studio's server-sent events, all of them, from the start of the file. */
interface EventStream {
  seen: Record<string, unknown>[];
  /** The first event (seen already or to come; from the `after`th on) for which `match` holds. */
  next(match: (event: Record<string, unknown>) => boolean, what: string, after?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function openEventStream(): Promise<EventStream> {
  const response = await fetch(`${studio.origin}/api/events?token=${encodeURIComponent(studio.token)}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const seen: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  void (async () => {
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const match = /^data: (.*)$/m.exec(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (match?.[1]) seen.push(JSON.parse(match[1]) as Record<string, unknown>);
      }
      for (const wake of [...waiters]) wake();
    }
    ended = true;
    for (const wake of [...waiters]) wake();
  })();
  return {
    seen,
    next(match, what, after = 0) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const found = seen.slice(after).find(match);
          if (found) {
            waiters.delete(check);
            resolve(found);
          } else if (ended) {
            waiters.delete(check);
            reject(new Error(`the event stream ended before ${what}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    close: () => reader.cancel().catch(() => undefined),
  };
}

async function call<T = Record<string, unknown>>(method: string, pathname: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${studio.origin}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${studio.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

let worker: CliProcess | undefined;

/** The store's one worker, started on first need (the first test starts it itself, after a run found none). */
function ensureWorker(): CliProcess {
  if (worker === undefined) {
    worker = startCli(['worker', '--store', store, '--verbose'], {
      cwd: space.root,
      env: { ...space.env, AGENT_SPACES_BASE_URL: model.baseURL, AGENT_SPACES_MODEL: 'scripted-model' },
    });
    processes.push(worker);
  }
  return worker;
}

/** Submits a program to the store from outside the studio (the library, as `agent-spaces run --store` does). */
function submitElsewhere(code: string): Promise<RunResult & { runId: string }> {
  ensureWorker();
  return submitRun({ store, code, timeoutMs: LONG });
}

const sendProgram = (item: string): string =>
  `import { ledger } from '@capabilities/ledger';\ntry { await ledger.send({ item: '${item}' }); } catch (error) { console.log(String(error)); }\nexport default '${item} done';`;

interface ApprovalView {
  id: string;
  runId?: string;
  origin: { kind: string; store?: string };
  capability: string;
  function: string;
  params: unknown;
  message: string;
}

const storedApproval =
  (item: string) =>
  (event: Record<string, unknown>): boolean => {
    const approval = event.approval as ApprovalView | undefined;
    return (
      event.type === 'approval-required' &&
      approval?.origin.kind === 'store' &&
      JSON.stringify(approval.params) === JSON.stringify({ item })
    );
  };

beforeAll(async () => {
  const [uiDir, started, made] = await Promise.all([
    ensureUiBuilt(),
    startPostgresCluster(),
    makeDurableSpace('studio-store', { approvalDeadlineMs: APPROVAL_DEADLINE_MS }),
  ]);
  cluster = started;
  space = made;
  store = await cluster.createDatabase('studio');
  model = await startScriptedModelServer([
    callReply('call_tool', { name: 'ledger.record', arguments: { item: 'from a task' } }),
    callReply('finish', { summary: 'Recorded it.', result: { recorded: 1 } }),
  ]);
  studio = await startStudio({ openSpace, cwd: space.root, store, uiDir });
  stream = await openEventStream();
}, LONG);

afterAll(async () => {
  await stream?.close();
  await studio?.close();
  for (const running of processes) running.child.kill('SIGKILL');
  await Promise.all(processes.map((running) => running.exited));
  await model?.close();
  await cluster?.stop();
});

describe('the studio with a store: its API', { timeout: LONG }, () => {
  it('says when a playground run waits for a worker, and runs it on the worker that starts', async () => {
    const running = call<{ runId: string; result: RunResult; worker?: { executorId: string; attempts: number } }>('POST', '/api/run', {
      code: "import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: 'from the playground' });\nconsole.log('recorded');\nexport default 'played';",
    });
    const waiting = await stream.next((event) => event.type === 'run-waiting-for-worker', 'the notice that no worker runs');
    const runId = String(waiting.runId);
    expect(waiting.store).toBe(store); // this URL has no password to hide
    const queued = await call<{ runs: { id: string; kind: string; status?: string }[] }>('GET', '/api/runs');
    expect(queued.body.runs.find((run) => run.id === runId)).toMatchObject({ kind: 'stored-run', status: 'ENQUEUED' });

    ensureWorker();
    const { status, body } = await running;
    expect(status).toBe(200);
    expect(body.runId).toBe(runId);
    expect(body.result).toMatchObject({ success: true, result: 'played' });
    expect(body.worker).toMatchObject({ attempts: 1 });
    expect(space.effects()).toContain('record from the playground');
    await expect
      .poll(() => stream.seen)
      .toContainEqual(expect.objectContaining({ type: 'run-started', runId, executorId: body.worker?.executorId, attempt: 1 }));
    await expect.poll(() => stream.seen).toContainEqual(expect.objectContaining({ type: 'run-log', runId, message: 'recorded' }));

    // The result can reach the page before DBOS has marked the workflow SUCCESS (seen once in CI: PENDING).
    await expect
      .poll(async () => {
        const listed = await call<{ runs: { id: string; kind: string; status?: string; success?: boolean }[] }>('GET', '/api/runs');
        return listed.body.runs.find((run) => run.id === runId);
      })
      .toMatchObject({ kind: 'stored-run', status: 'SUCCESS', success: true });
    const opened = await call<{ kind: string; code: string; events: { kind: string }[]; result: { result: string } }>(
      'GET',
      `/api/runs/${runId}`,
    );
    expect(opened.body).toMatchObject({ kind: 'stored-run', result: { result: 'played' } });
    expect(opened.body.code).toContain('from the playground');
    expect(opened.body.events.map((event) => event.kind)).toEqual(['started', 'log', 'end']);
    const info = await call<{ store: { workers: string[] } }>('GET', '/api/space');
    expect(info.body.store.workers).toEqual([body.worker?.executorId]);
  });

  it('streams the takeover of a playground run whose worker died (kill -9) to another worker', async () => {
    const dying = ensureWorker();
    const before = stream.seen.length;
    const running = call<{ runId: string; result: RunResult; worker?: { executorId: string; attempts: number } }>('POST', '/api/run', {
      code: "import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: 'before the kill' });\nawait ledger.gate({ name: 'takeover' });\nexport default 'survived';",
    });
    await expect.poll(() => space.waiting(), { timeout: LONG }).toContain('takeover');
    const first = await stream.next((event) => event.type === 'run-started' && event.attempt === 1, 'the first attempt', before);
    dying.child.kill('SIGKILL');
    await dying.exited;
    worker = undefined;
    await space.open('takeover');
    ensureWorker();
    const { status, body } = await running;
    expect(status).toBe(200);
    expect(body.runId).toBe(first.runId);
    expect(body.result).toMatchObject({ success: true, result: 'survived' });
    expect(body.worker).toMatchObject({ attempts: 2 });
    expect(body.worker?.executorId).not.toBe(first.executorId);
    await expect
      .poll(() => stream.seen)
      .toContainEqual(expect.objectContaining({ type: 'run-started', runId: body.runId, attempt: 2, replayedCalls: 1 }));
    expect(space.effects().filter((line) => line === 'record before the kill')).toHaveLength(1);
  });

  it("runs a playground task on the store's worker, its steps streamed to the page", async () => {
    ensureWorker();
    const { status, body } = await call<{
      taskId: string;
      success: boolean;
      summary: string;
      result: unknown;
      worker?: { executorId: string };
    }>('POST', '/api/task', { task: 'record one item' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, summary: 'Recorded it.', result: { recorded: 1 } });
    expect(body.worker?.executorId).toEqual(expect.any(String));
    expect(space.effects()).toContain('record from a task');
    // The page's event stream is another connection: its last events may arrive just after the answer.
    const steps = (): string[] =>
      stream.seen
        .filter((event) => event.type === 'task-event' && event.runId === body.taskId)
        .map((event) => (event.event as { type: string }).type);
    await expect.poll(steps).toEqual(expect.arrayContaining(['task-start', 'model-reply', 'tool-call', 'task-finish']));
    const listed = await call<{ runs: { id: string; kind: string; status?: string; success?: boolean; title: string }[] }>(
      'GET',
      '/api/runs',
    );
    // The worker's trace in the run folder and the store's row are one line, whichever was written last.
    expect(listed.body.runs.filter((run) => run.id === body.taskId)).toHaveLength(1);
    expect(listed.body.runs.find((run) => run.id === body.taskId)).toMatchObject({
      kind: 'stored-task',
      success: true,
      title: 'record one item',
    });
    // The run's end event (which answered the request) is written before its workflow returns: DBOS records
    // SUCCESS a moment later, and the next listing shows it.
    await expect
      .poll(async () => (await call<typeof listed.body>('GET', '/api/runs')).body.runs.find((run) => run.id === body.taskId)?.status)
      .toBe('SUCCESS');
  });

  it('lists a stored approval of a run submitted elsewhere; approving it in the inbox completes the run', async () => {
    const submitted = submitElsewhere(sendProgram('parcel'));
    const event = await stream.next(storedApproval('parcel'), 'the stored approval in the inbox');
    const { id, runId } = event.approval as ApprovalView;
    const listed = await call<{ approvals: ApprovalView[]; store: { url: string } }>('GET', '/api/approvals');
    expect(listed.body.approvals.find((approval) => approval.id === id)).toEqual({
      id,
      runId,
      origin: { kind: 'store', store: listed.body.store.url },
      capability: 'ledger',
      function: 'send',
      params: { item: 'parcel' },
      message: 'Send parcel?',
      timestamp: expect.any(String),
      deadline: expect.any(String),
    });
    const shown = listed.body.approvals.find((approval) => approval.id === id) as ApprovalView & { timestamp: string; deadline: string };
    expect(Date.parse(shown.deadline) - Date.parse(shown.timestamp)).toBeGreaterThanOrEqual(APPROVAL_DEADLINE_MS - 60_000);
    expect((await call('POST', `/api/approvals/${id}`, { approved: true, reason: 'fine by the studio' })).status).toBe(200);
    const result = await submitted;
    expect(result.runId).toBe(runId);
    expect(result).toMatchObject({ success: true, result: 'parcel done' });
    expect(space.effects()).toContain('send parcel');
    await stream.next((seen) => seen.type === 'approval-decided' && seen.id === id && seen.approved === true, 'the decision event');
    const again = await call<{ error: { message: string } }>('POST', `/api/approvals/${id}`, { approved: true });
    expect(again.status).toBe(404);
    expect(again.body.error.message).toContain('already decided: approved (fine by the studio)');
  });

  it('drops an approval decided with agent-spaces approvals from the inbox, live', async () => {
    const submitted = submitElsewhere(sendProgram('by the cli'));
    const event = await stream.next(storedApproval('by the cli'), 'the stored approval in the inbox');
    const { id } = event.approval as ApprovalView;
    const deny = startCli(['approvals', 'deny', id, '--store', store, '--reason', 'not today'], { cwd: space.root });
    processes.push(deny);
    expect(await deny.exited, deny.stderr()).toBe(0);
    const decided = await stream.next((seen) => seen.type === 'approval-decided' && seen.id === id, 'the decision made elsewhere');
    expect(decided).toMatchObject({ approved: false, reason: 'not today' });
    const listed = await call<{ approvals: ApprovalView[] }>('GET', '/api/approvals');
    expect(listed.body.approvals.map((approval) => approval.id)).not.toContain(id);
    const result = await submitted;
    expect(result.result).toBe('by the cli done');
    expect(result.logs.map((log) => log.message).join('\n')).toContain('not today');
    expect(space.effects()).not.toContain('send by the cli');
  });
});

describe('the studio with a store: in a browser', { timeout: LONG }, () => {
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `the studio's browser tests need Chromium at ${CHROMIUM}: install it with "apt-get update && apt-get install -y chromium" (or set AGENT_SPACES_CHROMIUM to a Chromium binary)`,
      );
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, LONG);

  afterAll(async () => {
    await browser?.close();
  });

  it('says in the playground that no worker is running, and shows the result once one starts', async () => {
    const gone = worker;
    worker = undefined;
    gone?.child.kill('SIGKILL');
    await gone?.exited;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(120_000);
    await page.goto(studio.url);
    await page.getByRole('link', { name: 'Playground' }).click();
    await page
      .getByLabel('Where runs go')
      .getByText(/none is running now: start one with "agent-spaces worker"/)
      .waitFor();
    const editor = page.getByRole('textbox', { name: 'Program (TypeScript)' });
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(
      "import { ledger } from '@capabilities/ledger';\nawait ledger.record({ item: 'from the browser playground' });\nexport default 'from the browser playground';",
    );
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const output = page.getByRole('region', { name: 'Run output' });
    await output
      .getByRole('alert')
      .getByText(/no worker is running: start one with "agent-spaces worker"/)
      .waitFor();
    ensureWorker();
    await output.getByLabel('Result').getByText('from the browser playground').waitFor();
    await output
      .getByLabel('Worker')
      .getByText(/Ran in the store on worker/)
      .waitFor();
    expect(space.effects()).toContain('record from the browser playground');
    await page.close();
  });

  it('approves a stored approval from the inbox: the run waiting in the store completes', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(120_000);
    await page.goto(studio.url);
    const submitted = submitElsewhere(sendProgram('from the browser'));
    await page.locator('#approvals-count:not([hidden])').waitFor();
    await page.getByRole('link', { name: /Approvals/ }).click();
    const waiting = page.getByRole('article', { name: 'ledger.send waiting for approval' });
    await waiting.getByLabel('Arguments').getByText('"item": "from the browser"').waitFor();
    await waiting.getByText(/by a durable run in the store postgres:\/\//).waitFor();
    await waiting.getByText(/^Denied at .* unless decided before\.$/).waitFor();
    await waiting.getByLabel('Reason').fill('checked in the browser');
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Nothing is waiting.').waitFor();
    const result = await submitted;
    expect(result).toMatchObject({ success: true, result: 'from the browser done' });
    expect(space.effects()).toContain('send from the browser');
    // The runs pane lists it with its status, whoever submitted it.
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.locator(`a[data-run="${result.runId}"]`).click();
    await page
      .getByRole('region', { name: 'Run' })
      .getByLabel('Run events')
      .getByText('approved (checked in the browser)', { exact: false })
      .waitFor();
    await page.close();
  });
});
