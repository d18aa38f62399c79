// The studio's Eval pane in a real browser: playwright-core drives Debian's chromium against `startStudio`
// on a space whose eval folder holds two real runs of τ² retail tasks 0–2 by the oracle ("before": direct
// and code; "after": all three arms). It opens the pane, sees the arms side by side, opens a task's
// transcripts and compares the two runs. No timing: each step waits for what it expects to see.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { makeEvalRuns, type EvalRuns } from '../../studio/test-support/eval-runs.js';
import { ensureUiBuilt, makeStudioSpace } from '../../studio/test-support/studio-space.js';

const CHROMIUM = process.env.AGENT_SPACES_CHROMIUM ?? '/usr/bin/chromium';

let studio: RunningStudio;
let browser: Browser;
let page: Page;
let runs: EvalRuns;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the studio's browser tests need Chromium at ${CHROMIUM}: install it with "apt-get update && apt-get install -y chromium" (or set AGENT_SPACES_CHROMIUM to a Chromium binary)`,
    );
  }
  const [uiDir, space] = await Promise.all([ensureUiBuilt(), makeStudioSpace('studio-eval-e2e')]);
  Object.assign(process.env, space.env);
  runs = await makeEvalRuns(path.join(space.root, '.agent-spaces', 'eval'));
  studio = await startStudio({ openSpace, cwd: space.root, uiDir });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(60_000);
  await page.goto(studio.url);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await studio?.close();
});

describe('the Eval pane in a browser', { timeout: 120_000 }, () => {
  it('lists the runs and shows a run with its arms side by side', async () => {
    await page.getByRole('link', { name: 'Eval', exact: true }).click();
    const list = page.getByRole('table', { name: 'Eval runs' });
    await list.getByText('direct 3/3').first().waitFor();
    await list.getByRole('link', { name: 'after' }).click();
    const arms = page.getByRole('table', { name: 'Arms' });
    await arms.waitFor();
    expect(await arms.locator('thead th').allInnerTexts()).toEqual(['Per task (mean)', 'direct 3/3', 'code 3/3', 'planner 3/3']);
    // Prompt tokens per arm, as the harness reported them.
    const prompt = arms.locator('tr[data-metric="promptTokens"] .metric-value');
    const expected = runs.after.report.arms.map((arm) => Math.round(arm.meanPromptTokens).toLocaleString('en-US'));
    expect(await prompt.allInnerTexts()).toEqual(expected);
    expect(await arms.locator('tr[data-metric="success"] .metric-value').allInnerTexts()).toEqual(['100%', '100%', '100%']);
    const tasks = page.getByRole('table', { name: 'Tasks' });
    expect(await tasks.locator('tbody tr').count()).toBe(3);
    expect(await tasks.locator('.pill.pass').count()).toBe(9);
    // Every arm passes every task: no task differs, so the filter leaves none.
    await page.getByLabel(/only tasks where the arms' outcomes differ \(0\)/).check();
    await expect.poll(() => tasks.locator('tbody tr').count()).toBe(0);
    await page.getByLabel(/only tasks where the arms' outcomes differ/).uncheck();
    await expect.poll(() => tasks.locator('tbody tr').count()).toBe(3);
    // Largest spread of prompt tokens among the arms first, as the harness computed it.
    await page.getByLabel('largest spread of prompt tokens first').check();
    const widest = [...runs.after.report.tasks].sort((a, b) => b.spread - a.spread).map((task) => task.taskId);
    await expect
      .poll(() => tasks.locator('tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-task'))))
      .toEqual(widest);
  });

  it("opens a task's transcript per arm, in order", async () => {
    await page.getByRole('link', { name: 'Transcripts of task 0' }).click();
    const transcripts = page.getByRole('region', { name: 'Transcript' });
    await transcripts.getByRole('heading', { name: 'Task 0: transcripts' }).waitFor();
    const code = transcripts.locator('[aria-label="Transcript code"]');
    await code.locator('li[data-kind="code"]').first().waitFor();
    expect(await code.locator('li[data-kind="code"] pre').first().innerText()).toContain("from '@capabilities/retail'");
    const kinds = await code.locator('li.step').evaluateAll((items) => items.map((item) => item.getAttribute('data-kind')));
    expect(kinds.slice(0, 3)).toEqual(['system', 'user', 'search']);
    expect(kinds.indexOf('code-result')).toBeGreaterThan(kinds.indexOf('code'));
    const direct = transcripts.locator('[aria-label="Transcript direct"]');
    await direct.locator('li[data-kind="tool-call"]').getByText('find_user_id_by_name_zip').waitFor();
    const planner = transcripts.locator('[aria-label="Transcript planner"]');
    await planner.locator('li[data-kind="answer"]').waitFor();
    expect(await transcripts.locator('.transcript .pill.pass').count()).toBe(3);
  });

  it('compares two runs: the same arms equal, the arm of one run only without a difference', async () => {
    await page.getByRole('link', { name: 'Eval', exact: true }).click();
    await page.getByLabel('Before').selectOption('before');
    await page.getByLabel('After').selectOption('after');
    await page.getByRole('button', { name: 'Compare' }).click();
    const table = page.getByRole('table', { name: 'Arms compared' });
    await table.waitFor();
    expect(page.url()).toContain('#/eval/compare/before/after');
    await page.getByRole('heading', { name: 'Comparison: before → after' }).waitFor();
    const promptRow = table.locator('tbody tr', { hasText: 'Prompt tokens' });
    const cells = await promptRow.locator('td').allInnerTexts();
    // direct: before, after, Δ; code: the same; planner: only after.
    const direct = runs.before.report.arms.find((arm) => arm.arm === 'direct');
    expect(cells[0]).toBe(Math.round(direct?.meanPromptTokens ?? -1).toLocaleString('en-US'));
    expect(cells[2]).toBe('=');
    // Code-mode prompts carry each program's wall time, so its tokens may move by a few between runs.
    const codeDelta =
      (runs.after.report.arms.find((arm) => arm.arm === 'code')?.meanPromptTokens ?? 0) -
      (runs.before.report.arms.find((arm) => arm.arm === 'code')?.meanPromptTokens ?? 0);
    if (Math.abs(codeDelta) < 1e-9) expect(cells[5]).toBe('=');
    else expect(cells[5]).toMatch(codeDelta > 0 ? /^\+\d/ : /^−\d/);
    expect(cells[6]).toBe('–');
    expect(cells[8]).toBe('–');
    const tasks = page.getByRole('table', { name: 'Tasks compared' });
    expect(await tasks.locator('tbody tr').count()).toBe(3);
    await tasks.locator('tbody tr').first().getByText('after only:').waitFor();
  });
});
