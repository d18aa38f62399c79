// The studio in a real browser: playwright-core drives Debian's chromium against `startStudio` on a copy
// of the example space, through every pane. No timing: each step waits for what it expects to see.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { callReply, startScriptedModelServer } from '../support/scripted-model-server.js';
import { ensureUiBuilt, makeStudioSpace, recordTask, REPO, type StudioSpace } from '../../studio/test-support/studio-space.js';

const CHROMIUM = process.env.AGENT_SPACES_CHROMIUM ?? '/usr/bin/chromium';

let space: StudioSpace;
let studio: RunningStudio;
let browser: Browser;
let page: Page;

/** Replaces the text of the CodeMirror editor labelled `label` as a person would: select all, type. */
async function typeInEditor(label: string, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name: label });
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the studio's browser tests need Chromium at ${CHROMIUM}: install it with "apt-get update && apt-get install -y chromium" (or set AGENT_SPACES_CHROMIUM to a Chromium binary)`,
    );
  }
  // The tool test must find no model, whatever this machine has set.
  delete process.env.OPENAI_API_KEY;
  delete process.env.AGENT_SPACES_BASE_URL;
  const [uiDir, made] = await Promise.all([ensureUiBuilt(), makeStudioSpace('studio-e2e')]);
  space = made;
  Object.assign(process.env, space.env);
  await recordTask(space.root);
  studio = await startStudio({ openSpace, cwd: space.root, uiDir });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(60_000);
  await page.goto(studio.url);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await studio?.close();
});

// Generous: a busy machine may take long to start the sandbox and the stations server; nothing is timed.
describe('the studio in a browser', { timeout: 120_000 }, () => {
  it('opens on the capabilities pane, takes the token out of the address, and shows a module', async () => {
    await page.getByRole('button', { name: /^crm/ }).click();
    const detail = page.getByRole('region', { name: 'Module' });
    await expect.poll(() => detail.getByRole('heading', { name: '@capabilities/crm' }).count()).toBe(1);
    await detail.getByRole('article', { name: 'crm.createTicket' }).getByText('requires approval', { exact: true }).waitFor();
    expect(page.url()).not.toContain('token=');
    await page.getByLabel('Query').fill('schedule');
    await page.getByRole('list', { name: 'Search results' }).getByText('train-schedule.getSchedule').waitFor();
    await page.getByRole('button', { name: 'Rebuild' }).click();
    await page
      .getByRole('list', { name: 'Build progress' })
      .getByText(/capabilities\/crm\.ts: (loaded|start)/)
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Rebuild' }).and(page.locator(':enabled')).waitFor();
    await page.getByRole('region', { name: 'Build report' }).getByText('Failures (0)').waitFor();
  });

  it('shows a type error as you type, then runs the fixed program', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await typeInEditor(
      'Program (TypeScript)',
      "import { crm } from '@capabilities/crm';\nconst found: number = await crm.searchCustomers({ query: 'acme' });\nexport default found;",
    );
    const problems = page.getByRole('list', { name: 'Type errors' });
    await problems.getByText(/line 2:7 TS2322/).waitFor();
    await typeInEditor(
      'Program (TypeScript)',
      "import { crm } from '@capabilities/crm';\nconst found = await crm.searchCustomers({ query: 'acme' });\nconsole.log(`found ${found.length}`);\nexport default found.map((customer) => customer.name);",
    );
    await problems.getByText('No type errors.').waitFor();
    await page.getByRole('button', { name: 'Run' }).click();
    const output = page.getByRole('region', { name: 'Run output' });
    await output.getByLabel('Result').getByText('Acme Labs').waitFor();
    await output.getByLabel('Logs').getByText('found 2').waitFor();
    await output.getByRole('table', { name: 'Calls' }).getByText('crm.searchCustomers').waitFor();
  });

  it('runs a function from the form generated from its schema, validating as you type', async () => {
    await page.goto(`${studio.origin}/#/tester/crm.searchCustomers`);
    const validation = page.getByRole('list', { name: 'Validation' });
    await validation.getByText('is required').waitFor();
    await page.getByLabel('query *').fill('acme');
    await validation.getByText('Valid arguments.').waitFor();
    await page.getByLabel('limit').fill('1');
    await validation.getByText('Valid arguments.').waitFor();
    await page.getByRole('button', { name: 'Call' }).click();
    const response = page.getByRole('region', { name: 'Request and response' });
    await response.getByLabel('Response').getByText('Acme Corp').waitFor();
    expect(await response.getByLabel('Request').textContent()).toContain('"limit": 1');
  });

  it('builds a form for $ref, nested objects, arrays, enums and oneOf, with a JSON mode', async () => {
    await page.goto(`${studio.origin}/#/tester/quote-shipment.quoteShipment`);
    const validation = page.getByRole('list', { name: 'Validation' });
    await validation.getByText(/from.*is required/).waitFor();
    await page.getByLabel('city *').fill('Oslo');
    await page.getByRole('button', { name: 'Add to parcels' }).click();
    await page.getByLabel('weightKg *').fill('2.5');
    await page.getByLabel('speed *').selectOption({ label: '"express"' });
    await page.getByLabel('payment: which variant').selectOption({ label: 'card' });
    await page.getByLabel('last4 *').fill('12a4');
    await validation
      .getByText(/must match pattern/)
      .first()
      .waitFor();
    await page.getByLabel('last4 *').fill('1234');
    await validation.getByText('Valid arguments.').waitFor();
    await page.getByRole('button', { name: 'Call' }).click();
    await page.getByLabel('Response').getByText('1 parcel(s), 2.5 kg from Oslo by express').waitFor();
    await page.getByLabel(/JSON mode/).check();
    const json = page.getByRole('textbox', { name: 'Arguments (JSON)' });
    expect(JSON.parse(await json.inputValue())).toEqual({
      from: { city: 'Oslo' },
      parcels: [{ weightKg: 2.5 }],
      speed: 'express',
      payment: { last4: '1234' },
    });
    await json.fill('{ "from": ');
    await validation.getByText(/not JSON/).waitFor();
  });

  it('edits an agent tool: the preview follows the template as you type; saved, it survives a reload', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('button', { name: 'describe_station' }).waitFor();
    const preview = page.getByLabel('Preview');
    await preview.getByText('(Answer as tool describe_station.)', { exact: false }).waitFor();
    await page.getByLabel('name *').fill('Harbor');
    await preview.getByText('Tell a traveller about Harbor station').waitFor();
    await typeInEditor('Prompt template', 'Describe {name} for {who}; needs: {needs}');
    await page
      .getByRole('list', { name: 'Errors' })
      .getByText(/\{who\} names no parameter/)
      .waitFor();
    await typeInEditor('Prompt template', 'Describe {name} carefully; needs: {needs}');
    await preview.getByText('Describe Harbor carefully; needs: general information').waitFor();
    await page.getByRole('list', { name: 'Errors' }).getByText('No errors.').waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    // Exactly "Saved": hasText is a case-insensitive substring, and "Unsaved changes" would match it too.
    await page
      .getByRole('status')
      .filter({ hasText: /^Saved$/ })
      .first()
      .waitFor();
    const saved = JSON.parse(await readFile(path.join(space.agentDir, 'tsagent.json'), 'utf8')) as {
      metadata: { tools: { prompt: string }[] };
    };
    expect(saved.metadata.tools[0]?.prompt).toBe('Describe {name} carefully; needs: {needs}');
    await page.reload();
    await page.getByRole('textbox', { name: 'Prompt template' }).getByText('Describe {name} carefully; needs: {needs}').waitFor();
    await page.getByLabel('name *').fill('Harbor');
    await page.getByRole('button', { name: 'Test tool' }).click();
    await page
      .getByRole('alert')
      .getByText(/needs a model.*OPENAI_API_KEY/)
      .waitFor();
    // With a model (the scripted server): the filled prompt, the session's steps and the answer.
    const model = await startScriptedModelServer([
      callReply('finish', { summary: 'Harbor is step-free.', result: 'Harbor: step-free, lines A and C.' }),
    ]);
    process.env.AGENT_SPACES_BASE_URL = model.baseURL;
    try {
      await page.getByRole('button', { name: 'Test tool' }).click();
      await page.getByLabel('Answer').getByText('Harbor: step-free, lines A and C.').waitFor();
      await page
        .getByRole('list', { name: 'Session steps' })
        .getByText(/finished: Harbor is step-free\./)
        .waitFor();
      expect(JSON.stringify(model.requests.at(-1)?.body?.messages)).toContain('Describe Harbor carefully; needs: general information');
    } finally {
      delete process.env.AGENT_SPACES_BASE_URL;
      await model.close();
    }
  });

  it('approves a waiting call in the inbox and the run finishes', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await typeInEditor(
      'Program (TypeScript)',
      "import { crm } from '@capabilities/crm';\nexport default await crm.createTicket({ customerId: 'c-002', subject: 'From the browser', priority: 'low' });",
    );
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('#approvals-count:not([hidden])').waitFor();
    await page.getByRole('link', { name: /Approvals/ }).click();
    const waiting = page.getByRole('article', { name: 'crm.createTicket waiting for approval' });
    await waiting.getByLabel('Arguments').getByText('"subject": "From the browser"').waitFor();
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Nothing is waiting.').waitFor();
    // Back in the playground, the run it left waiting has finished: its result is there.
    await page.getByRole('navigation').getByRole('link', { name: 'Playground' }).click();
    await page
      .getByRole('region', { name: 'Run output' })
      .getByLabel('Result')
      .getByText(/"id": "t-/)
      .waitFor();
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('table', { name: 'Runs' }).getByText('code run').first().waitFor();
  });

  it('shows a call of an attached `agent-spaces run --studio` with its origin, approved by keyboard alone', async () => {
    const program = path.join(space.root, 'attached-ticket.ts');
    await writeFile(
      program,
      "import { crm } from '@capabilities/crm';\nexport default await crm.createTicket({ customerId: 'c-003', subject: 'From an attached run', priority: 'medium' });\n",
    );
    const run = execa(process.execPath, [path.join(REPO, 'bin/agent-spaces.js'), 'run', program, '--json', '--studio', studio.url], {
      cwd: space.root,
      env: space.env,
      reject: false,
      stdin: 'ignore',
    });
    await page.getByRole('link', { name: /Approvals/ }).click();
    const waiting = page.getByRole('article', { name: 'crm.createTicket waiting for approval' });
    // The attached run builds the space's capabilities first (an MCP server, an OpenAPI spec, an agent):
    // on a loaded machine that alone has taken most of a minute, so this wait is generous.
    await waiting.getByLabel('Arguments').getByText('"subject": "From an attached run"').waitFor({ timeout: 180_000 });
    await waiting
      .getByText(
        new RegExp(`by agent-spaces run \\(pid \\d+\\) in ${space.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*attached-ticket\\.ts`),
      )
      .waitFor();
    // Keyboard only: Tab from the top of the page to the call's Approve button, then Enter.
    const approveFocused = async (): Promise<boolean> => (await waiting.locator('button:focus', { hasText: 'Approve' }).count()) === 1;
    let presses = 0;
    while (!(await approveFocused())) {
      expect(presses++, 'Tab never reached the Approve button').toBeLessThan(200);
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page.getByText('Nothing is waiting.').waitFor();
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { result: { id: string } }).result.id).toMatch(/^t-/);
  }, 300_000);

  it('opens a planner trace from the run folder and replays it', async () => {
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('link', { name: 'Which destinations does Central serve?' }).click();
    const run = page.getByRole('region', { name: 'Run' });
    await run.getByRole('heading', { name: 'Task task-central' }).waitFor();
    await run.getByRole('table', { name: 'Trace events' }).locator('tr[data-event="task-finish"]').waitFor();
    expect(await run.getByRole('table', { name: 'Trace events' }).locator('tr[data-event="model-reply"]').count()).toBe(3);
    await run.getByRole('button', { name: 'Replay' }).click();
    await run.getByText('Replayed: Central has trains to three destinations.').waitFor();
  });
});
