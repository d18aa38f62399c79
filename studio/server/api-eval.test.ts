// The studio's eval API over real HTTP, on run folders the real harness wrote (τ² retail tasks 0–2 with
// the oracle, twice), and on hostile folders: ids that try to leave the eval folder, files too large,
// not JSON, of the wrong shape or linked elsewhere. Each is refused or named; the server keeps serving.
import { request as httpRequest } from 'node:http';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { MAX_RESULT_BYTES, MAX_TRANSCRIPT_BYTES } from '../../eval/read-run.js';
import { makeEvalRuns, type EvalRuns } from '../test-support/eval-runs.js';
import { makeStudioSpace, type StudioSpace } from '../test-support/studio-space.js';
import { startStudio, type RunningStudio } from './index.js';
import type { EvalComparisonView, EvalRunListView, EvalRunView, EvalTranscriptView } from './wire-types.js';

let space: StudioSpace;
let studio: RunningStudio;
let runs: EvalRuns;
let evalDir: string;

async function get<T = { error: { code: string; message: string } }>(pathname: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${studio.origin}${pathname}`, { headers: { authorization: `Bearer ${studio.token}` } });
  return { status: response.status, body: (await response.json()) as T };
}

type ErrorBody = { error: { code: string; message: string } };

/** A request whose path is sent as written (fetch would resolve "..", a browser too; an attacker need not). */
function rawGet(pathname: string): Promise<{ status: number; body: ErrorBody }> {
  const url = new URL(studio.origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path: pathname, headers: { authorization: `Bearer ${studio.token}` } },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as ErrorBody }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

beforeAll(async () => {
  space = await makeStudioSpace('studio-eval-api');
  Object.assign(process.env, space.env);
  evalDir = path.join(space.root, '.agent-spaces', 'eval');
  runs = await makeEvalRuns(evalDir);

  // Hostile folders beside the real ones, made from a copy of "after".
  const broken = path.join(evalDir, 'broken');
  await cp(path.join(evalDir, 'after'), broken, { recursive: true });
  await writeFile(path.join(broken, 'results/direct/0#1.json'), '{"arm": "direct", not json');
  await writeFile(path.join(broken, 'results/direct/1#1.json'), JSON.stringify({ pad: 'x'.repeat(MAX_RESULT_BYTES) }));
  const code1 = JSON.parse(await readFile(path.join(broken, 'results/code/1#1.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(path.join(broken, 'results/code/1#1.json'), JSON.stringify({ ...code1, promptTokens: 'many', taskId: '../../etc' }));
  await symlink('/etc/passwd', path.join(broken, 'results/code/2#1.json'), 'file').catch(async () => {
    await writeFile(path.join(broken, 'results/code/2#1.json'), '');
  });
  await writeFile(path.join(broken, 'transcripts/planner/0#1.json'), `[${JSON.stringify('y'.repeat(MAX_TRANSCRIPT_BYTES))}]`);
  await writeFile(path.join(broken, 'transcripts/planner/1#1.json'), '[{"role": "assistant", "content": ');
  await mkdir(path.join(evalDir, 'no-settings'), { recursive: true });
  await writeFile(path.join(evalDir, 'no-settings', 'run.json'), '{ "suite": ');
  await symlink(path.dirname(space.root), path.join(evalDir, 'linked'), 'dir');

  const uiDir = path.join(space.root, 'ui');
  await mkdir(uiDir, { recursive: true });
  await writeFile(path.join(uiDir, 'index.html'), '<!doctype html><title>studio test page</title>');
  studio = await startStudio({ openSpace, cwd: space.root, uiDir });
}, 600_000);

afterAll(async () => {
  await studio?.close();
});

describe('the eval API on real run folders', { timeout: 60_000 }, () => {
  it('lists the runs under <root>/.agent-spaces/eval with their settings and outcomes', async () => {
    const { status, body } = await get<EvalRunListView>('/api/eval/runs');
    expect(status).toBe(200);
    expect(body.evalDir).toBe(evalDir);
    const before = body.runs.find((run) => run.id === 'before');
    const after = body.runs.find((run) => run.id === 'after');
    expect(before).toMatchObject({ suite: 'tau2-retail', model: 'oracle', arms: ['direct', 'code'], tasks: 3, results: 6, expected: 6 });
    expect(before?.outcomes).toEqual([
      { arm: 'direct', runs: 3, successes: 3 },
      { arm: 'code', runs: 3, successes: 3 },
    ]);
    expect(after).toMatchObject({ arms: ['direct', 'code', 'planner'], results: 9, expected: 9 });
    // A symlinked folder is not a run of this folder.
    expect(body.runs.map((run) => run.id)).not.toContain('linked');
  });

  it("answers one run's report per arm and per task, as the harness computed it", async () => {
    const { status, body } = await get<EvalRunView>('/api/eval/runs/after');
    expect(status).toBe(200);
    expect(body.armViews.map((arm) => arm.arm)).toEqual(['direct', 'code', 'planner']);
    for (const arm of runs.after.report.arms) {
      const view = body.armViews.find((candidate) => candidate.arm === arm.arm);
      expect(view).toMatchObject({
        runs: 3,
        successes: 3,
        success: 1,
        turns: arm.meanTurns,
        promptTokens: arm.meanPromptTokens,
        completionTokens: arm.meanCompletionTokens,
        toolCalls: arm.meanToolCalls,
        codeRuns: arm.meanCodeRuns,
        searches: arm.meanSearches,
        totalCostUsd: arm.totalCostUsd,
      });
    }
    expect(body.tasks.map((task) => task.taskId)).toEqual(['0', '1', '2']);
    for (const result of runs.after.results) {
      const cell = body.tasks.find((task) => task.taskId === result.taskId)?.arms[result.arm];
      expect(cell, `${result.arm} ${result.taskId}`).toMatchObject({
        success: 1,
        turns: result.turns,
        promptTokens: result.promptTokens,
        toolCalls: result.toolCalls,
        codeRuns: result.codeRuns,
        wallMs: result.wallMs,
        runs: 1,
        reasons: [],
      });
    }
    expect(body.tasks.every((task) => !task.outcomesDiffer)).toBe(true);
    expect(body.problems).toEqual([]);
  });

  it("answers a task's transcript per arm as ordered steps: messages, calls, programs, results", async () => {
    const code = await get<EvalTranscriptView>('/api/eval/runs/after/transcripts/code/0/1');
    expect(code.status).toBe(200);
    const kinds = code.body.entries.map((entry) => entry.kind);
    expect(kinds.slice(0, 4)).toEqual(['system', 'user', 'search', 'tool-result']);
    expect(kinds).toContain('code');
    expect(kinds.indexOf('code-result')).toBeGreaterThan(kinds.indexOf('code'));
    expect(code.body.entries.find((entry) => entry.kind === 'code')?.text).toContain("from '@capabilities/retail'");
    expect(code.body.entries.at(-1)).toMatchObject({ kind: 'assistant' });
    expect(code.body).toMatchObject({ arm: 'code', taskId: '0', repetition: 1, success: true, reasons: [] });

    const direct = await get<EvalTranscriptView>('/api/eval/runs/after/transcripts/direct/0/1');
    const calls = direct.body.entries.filter((entry) => entry.kind === 'tool-call').map((entry) => entry.title);
    expect(calls[0]).toBe('find_user_id_by_name_zip');
    expect(direct.body.entries.filter((entry) => entry.kind === 'tool-result')).toHaveLength(calls.length);

    const planner = await get<EvalTranscriptView>('/api/eval/runs/after/transcripts/planner/0/1');
    expect(planner.body.entries[0]).toMatchObject({ kind: 'user', title: 'task' });
    expect(planner.body.entries.at(-1)).toMatchObject({ kind: 'answer', ok: true });
  });

  it('compares two runs per arm and per task; an arm of one run only has no difference', async () => {
    const { status, body } = await get<EvalComparisonView>('/api/eval/compare?before=before&after=after');
    expect(status).toBe(200);
    expect(body.before.id).toBe('before');
    expect(body.after.id).toBe('after');
    const direct = body.arms.find((arm) => arm.arm === 'direct');
    // The oracle is deterministic: the same tasks cost the same tokens in both runs.
    expect(direct?.delta).toMatchObject({ success: 0, promptTokens: 0, turns: 0 });
    expect(direct?.before?.promptTokens).toBe(runs.before.report.arms.find((arm) => arm.arm === 'direct')?.meanPromptTokens);
    const planner = body.arms.find((arm) => arm.arm === 'planner');
    expect(planner?.before).toBeUndefined();
    expect(planner?.delta).toBeUndefined();
    expect(planner?.after?.success).toBe(1);
    expect(body.tasks.map((task) => task.taskId)).toEqual(['0', '1', '2']);
    expect(body.tasks.every((task) => !task.outcomeChanged)).toBe(true);
    expect(body.tasks[0]?.arms.planner?.after).toBeDefined();
  });
});

describe('the eval API on hostile run folders', { timeout: 60_000 }, () => {
  it('refuses ids that would leave the eval folder, and bad escapes, without reading anything', async () => {
    // ".." (and "%2E%2E", which URL parsing treats alike) is resolved before routing: /api/eval/ is no route.
    expect((await rawGet('/api/eval/runs/..')).status).toBe(404);
    expect((await rawGet('/api/eval/runs/%2E%2E')).status).toBe(404);
    for (const id of ['..%2F..%2Fetc', 'a%2Fb', '.hidden', '%00']) {
      const { status, body } = await rawGet(`/api/eval/runs/${id}`);
      expect(status, id).toBe(400);
      expect(body.error.message, id).toMatch(/is not an eval run id/);
    }
    expect((await get<ErrorBody>('/api/eval/runs/%E0%A4%A')).body.error.message).toMatch(/not a valid percent-encoded path part/);
    expect((await get<ErrorBody>('/api/eval/compare?before=..&after=after')).status).toBe(400);
    expect((await get<ErrorBody>('/api/eval/runs/nothing-here')).status).toBe(404);
    const linked = await get<ErrorBody>('/api/eval/runs/linked');
    expect(linked.status).toBe(400);
    expect(linked.body.error.message).toMatch(/linked is not a folder \(links are not followed\)/);
  });

  it("refuses a transcript whose arm, task or repetition is not the run's", async () => {
    const cases: [string, RegExp][] = [
      ['/api/eval/runs/after/transcripts/..%2F..%2Frun.json/0/1', /arm "\.\.\/\.\.\/run\.json" is not one of this run's arms/],
      ['/api/eval/runs/after/transcripts/code/..%2F..%2Frun/1', /task "\.\.\/\.\.\/run" is not one of this run's tasks/],
      ['/api/eval/runs/after/transcripts/code/0/0', /repetition 0 is not one of this run's \(1 to 1\)/],
      ['/api/eval/runs/after/transcripts/code/0/abc', /repetition NaN is not one of this run's/],
      ['/api/eval/runs/before/transcripts/planner/0/1', /arm "planner" is not one of this run's arms \(direct, code\)/],
    ];
    for (const [pathname, message] of cases) {
      const { status, body } = await get<ErrorBody>(pathname);
      expect(status, pathname).toBe(400);
      expect(body.error.message, pathname).toMatch(message);
    }
  });

  it('names each bad result file and reads the rest', async () => {
    const { status, body } = await get<EvalRunView>('/api/eval/runs/broken');
    expect(status).toBe(200);
    const problems = body.problems.join('\n');
    expect(problems).toMatch(/results\/direct\/0#1\.json is not JSON/);
    expect(problems).toMatch(new RegExp(`results/direct/1#1\\.json is \\d+ bytes, over the ${MAX_RESULT_BYTES} bytes read at most`));
    expect(problems).toMatch(/results\/code\/1#1\.json: wrong or missing "promptTokens" \(a number\)/);
    expect(problems).toMatch(/results\/code\/2#1\.json (is not a regular file|: wrong or missing)|results\/code\/2#1\.json is not JSON/);
    expect(body.armViews.find((arm) => arm.arm === 'direct')?.runs).toBe(1);
    expect(body.armViews.find((arm) => arm.arm === 'planner')?.runs).toBe(3);
    expect(problems).not.toContain('root:');
  });

  it('refuses a transcript over the size cap or not JSON, naming the file', async () => {
    const huge = await get<ErrorBody>('/api/eval/runs/broken/transcripts/planner/0/1');
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toMatch(
      new RegExp(`transcripts/planner/0#1\\.json is \\d+ bytes, over the ${MAX_TRANSCRIPT_BYTES} bytes read at most`),
    );
    const bad = await get<ErrorBody>('/api/eval/runs/broken/transcripts/planner/1/1');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/transcripts\/planner\/1#1\.json is not JSON/);
  });

  it('lists a folder with a bad run.json with what is wrong, and answers it as a bad request naming the file', async () => {
    const list = await get<EvalRunListView>('/api/eval/runs');
    expect(list.body.runs.find((run) => run.id === 'no-settings')?.problem).toMatch(/no-settings\/run\.json is not JSON/);
    const one = await get<ErrorBody>('/api/eval/runs/no-settings');
    expect(one.status).toBe(400);
    expect(one.body.error.message).toMatch(/no-settings\/run\.json is not JSON/);
    // The server still serves.
    expect((await get('/api/eval/runs/after')).status).toBe(200);
  });
});
