// `npm run studio:screenshots`: a picture of each pane of the studio on a copy of the example space,
// taken with playwright-core and Debian's chromium, into docs/studio/.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { openSpace } from '../agents/index.js';
import { startStudio } from './server/index.js';
import { makeEvalRuns } from './test-support/eval-runs.js';
import { ensureUiBuilt, makeStudioSpace, recordTask, REPO } from './test-support/studio-space.js';

const CHROMIUM = process.env.AGENT_SPACES_CHROMIUM ?? '/usr/bin/chromium';
/** Where the pictures go: docs/studio/, or the folder in STUDIO_SCREENSHOTS_OUT (to look without touching the docs). */
const OUT = process.env.STUDIO_SCREENSHOTS_OUT ?? path.join(REPO, 'docs/studio');

async function typeInEditor(page: Page, label: string, text: string): Promise<void> {
  await page.getByRole('textbox', { name: label }).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

async function main(): Promise<void> {
  const [uiDir, space] = await Promise.all([ensureUiBuilt(), makeStudioSpace('studio-shots')]);
  Object.assign(process.env, space.env);
  await recordTask(space.root);
  await makeEvalRuns(path.join(space.root, '.agent-spaces', 'eval'));
  const studio = await startStudio({ openSpace, cwd: space.root, uiDir });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  await mkdir(OUT, { recursive: true });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(60_000);
    const shoot = (name: string) => page.screenshot({ path: path.join(OUT, `${name}.png`) });
    await page.goto(studio.url);

    await page.getByRole('button', { name: /^crm/ }).click();
    await page.getByRole('article', { name: 'crm.createTicket' }).waitFor();
    await shoot('capabilities');

    await page.getByRole('link', { name: 'Playground' }).click();
    await typeInEditor(
      page,
      'Program (TypeScript)',
      "import { trainSchedule } from '@capabilities/train-schedule';\nimport { getWeather } from '@capabilities/get-weather';\n\nconst trips = await trainSchedule.getSchedule({ station: 'Central' });\nconst morning = trips.filter((trip) => trip.hour < 12);\n// Parallel calls show side by side in the timeline.\nconst weather = await Promise.all(['Harbor', 'Airport', 'Northgate'].map((location) => getWeather({ location })));\nconsole.log(`${morning.length} of ${trips.length} trips leave in the morning`);\nexport default weather.map((report) => `${report.location}: ${report.temperature}°C`);\n",
    );
    await page.getByRole('list', { name: 'Type errors' }).getByText('No type errors.').waitFor();
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('table', { name: 'Calls' }).waitFor();
    await shoot('playground');
    await typeInEditor(
      page,
      'Program (TypeScript)',
      "import { crm } from '@capabilities/crm';\n\nconst found: number = await crm.searchCustomers({ query: 'acme' });\n",
    );
    await page
      .getByRole('list', { name: 'Type errors' })
      .getByText(/TS2322/)
      .waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await shoot('playground-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    await page.goto(`${studio.origin}/#/tester/crm.searchCustomers`);
    await page.getByLabel('query *').fill('acme');
    await page.getByRole('button', { name: 'Call' }).click();
    await page.getByLabel('Response').getByText('Acme Corp').waitFor();
    await shoot('function-tester');

    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByLabel('name *').fill('Harbor');
    await page.getByLabel('Preview').getByText('Harbor').waitFor();
    await page.getByRole('textbox', { name: 'Prompt template' }).evaluate((element) => element.scrollIntoView({ block: 'center' }));
    await shoot('agents');

    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('link', { name: 'Which destinations does Central serve?' }).click();
    await page.getByRole('table', { name: 'Trace events' }).waitFor();
    await shoot('runs');

    await page.getByRole('link', { name: 'Playground' }).click();
    await typeInEditor(
      page,
      'Program (TypeScript)',
      "import { crm } from '@capabilities/crm';\nexport default await crm.createTicket({ customerId: 'c-001', subject: 'Integration issue', priority: 'high' });\n",
    );
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByRole('link', { name: /Approvals/ }).click();
    await page.getByRole('article', { name: 'crm.createTicket waiting for approval' }).waitFor();
    await shoot('approvals');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Nothing is waiting.').waitFor();

    await page.locator('#toast.shown').waitFor({ state: 'hidden' });
    await page.getByRole('link', { name: 'Eval', exact: true }).click();
    await page.getByRole('table', { name: 'Eval runs' }).getByRole('link', { name: 'after' }).click();
    await page.getByRole('table', { name: 'Tasks' }).waitFor();
    await shoot('eval-run');
    await page.getByRole('link', { name: 'Transcripts of task 0' }).click();
    await page.locator('[aria-label="Transcript planner"] li[data-kind="answer"]').waitFor();
    await shoot('eval-transcript');
    await page.goto(`${studio.origin}/#/eval/compare/before/after`);
    await page.getByRole('table', { name: 'Tasks compared' }).waitFor();
    await shoot('eval-compare');

    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.getByRole('link', { name: 'Capabilities' }).click();
    await page.getByRole('button', { name: /^train-schedule/ }).click();
    await shoot('capabilities-1920');
  } finally {
    await browser.close();
    await studio.close();
  }
  process.stdout.write(`screenshots written to ${OUT}\n`);
}

await main();
