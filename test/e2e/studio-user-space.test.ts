// The studio as a new user meets it: a fresh folder with one capability of its own (not the example
// space), in a real browser (playwright-core + Debian's chromium). The playground opens on a program
// made from the space's own catalog that type-checks clean and runs; runs are listed by what they did;
// an approved run's result is there when the user comes back; errors read as messages. No timing:
// each step waits for what it expects to see.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { startStudio, type RunningStudio } from '../../studio/server/index.js';
import { ensureUiBuilt } from '../../studio/test-support/studio-space.js';
import { makeEmptySpace, makeUserSpace } from '../../studio/test-support/user-space.js';

const CHROMIUM = process.env.AGENT_SPACES_CHROMIUM ?? '/usr/bin/chromium';

let uiDir: string;
let studio: RunningStudio;
let browser: Browser;
let page: Page;

async function typeInEditor(text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Program (TypeScript)' }).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

/** Waits until the type-checker answered for the text now in the editor, and says how many errors it found. */
async function typeErrors(): Promise<number> {
  const problems = page.getByRole('list', { name: 'Type errors' });
  await problems.locator('li').first().waitFor();
  return Number(await problems.getAttribute('data-count'));
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `the studio's browser tests need Chromium at ${CHROMIUM}: install it with "apt-get update && apt-get install -y chromium" (or set AGENT_SPACES_CHROMIUM to a Chromium binary)`,
    );
  }
  const [built, space] = await Promise.all([ensureUiBuilt(), makeUserSpace('studio-user')]);
  uiDir = built;
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

describe("the studio in a new user's own space", { timeout: 120_000 }, () => {
  it("shows the space's own module first, its long description cut with a Show more button", async () => {
    const detail = page.getByRole('region', { name: 'Module' });
    await detail.getByRole('heading', { name: '@capabilities/notebook' }).waitFor();
    const description = detail.getByLabel('Module description');
    await description.getByText(/^A small notebook kept in memory/).waitFor();
    expect(await description.textContent()).not.toContain('END-OF-DESCRIPTION');
    await description.getByRole('button', { name: 'Show more' }).click();
    await description.getByText(/END-OF-DESCRIPTION/).waitFor();
    await description.getByRole('button', { name: 'Show less' }).click();
    expect(await description.textContent()).not.toContain('END-OF-DESCRIPTION');
    expect(await page.getByLabel('Query').getAttribute('placeholder')).toBe('e.g. add note');
  });

  it('opens the playground on a program of its own capability, with no type error and nothing of the example space', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    const editor = page.getByRole('textbox', { name: 'Program (TypeScript)' });
    await editor.getByText("import { notebook } from '@capabilities/notebook';").waitFor();
    await editor.getByText(/notebook\.addNote\(\{ title: 'example' \}\)/).waitFor();
    expect(await typeErrors()).toBe(0);
    await page.getByLabel('Hint').getByText("A first program from this space's notebook.addNote").waitFor();
    // Nothing of the example space: no trains, stations or weather in the text or the placeholders.
    const text = (await page.locator('main').innerText()).toLowerCase();
    const placeholders = (
      await page.locator('main [placeholder]').evaluateAll((elements) => elements.map((element) => element.getAttribute('placeholder')))
    )
      .join(' ')
      .toLowerCase();
    for (const word of ['train', 'station', 'weather', 'central']) {
      expect(text, `the playground speaks of "${word}"`).not.toContain(word);
      expect(placeholders, `a placeholder speaks of "${word}"`).not.toContain(word);
    }
  });

  it('runs the starter; its timeline stays inside its card; the runs pane lists it by its call', async () => {
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const output = page.getByRole('region', { name: 'Run output' });
    await output.getByLabel('Result').getByText('"title": "example"').waitFor();
    await output.getByLabel('Logs').getByText('notebook.addNote answered').waitFor();
    await output.getByRole('table', { name: 'Calls' }).getByText('notebook.addNote').waitFor();
    const card = await output.boundingBox();
    const timeline = await output.locator('.timeline').boundingBox();
    const bar = await output.locator('.timeline .bar').first().boundingBox();
    expect(card && timeline && bar).toBeTruthy();
    if (card && timeline && bar) {
      for (const inner of [timeline, bar]) {
        expect(inner.x).toBeGreaterThanOrEqual(card.x);
        expect(inner.x + inner.width).toBeLessThanOrEqual(card.x + card.width);
      }
    }
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    const runs = page.getByRole('table', { name: 'Runs' });
    await runs.getByRole('link', { name: 'notebook.addNote({"title":"example"})' }).waitFor();
    expect(await runs.getByRole('link', { name: /^import / }).count()).toBe(0);
  });

  it('lists a run by the name the user gave it', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page
      .getByRole('textbox', { name: 'Program (TypeScript)' })
      .getByText(/const result = await notebook\.addNote/)
      .waitFor();
    await page.getByLabel('Run name').fill('Groceries note');
    await typeInEditor(
      "import { notebook } from '@capabilities/notebook';\nexport default await notebook.addNote({ title: 'groceries', tags: ['home'] });\n",
    );
    expect(await typeErrors()).toBe(0);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('region', { name: 'Run output' }).getByLabel('Result').getByText('"title": "groceries"').waitFor();
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('table', { name: 'Runs' }).getByRole('link', { name: 'Groceries note' }).waitFor();
  });

  it('shows the result of a run approved in the Approvals pane when the user comes back, and after a reload', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('Run name').fill('');
    await typeInEditor("import { notebook } from '@capabilities/notebook';\nexport default await notebook.deleteNote({ id: 'n-1' });\n");
    expect(await typeErrors()).toBe(0);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('#approvals-count:not([hidden])').waitFor();
    await page.getByRole('link', { name: /Approvals/ }).click();
    const waiting = page.getByRole('article', { name: 'notebook.deleteNote waiting for approval' });
    await waiting.getByLabel('Arguments').getByText('"id": "n-1"').waitFor();
    await waiting.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Nothing is waiting.').waitFor();
    // The inbox keeps what was decided here, and says where the run's result shows.
    const decided = page.getByRole('region', { name: 'Decided here' });
    await decided.getByText(/notebook\.deleteNote approved/).waitFor();
    await decided.getByRole('link', { name: 'Playground' }).click();
    const output = page.getByRole('region', { name: 'Run output' });
    await output.getByLabel('Result').getByText('"deleted": "n-1"').waitFor();
    await output.getByRole('table', { name: 'Calls' }).getByText('notebook.deleteNote').waitFor();
    await page.reload();
    await page.getByRole('region', { name: 'Run output' }).getByLabel('Result').getByText('"deleted": "n-1"').waitFor();
  });

  it('shows a failed run as a message (code, message, line), not JSON, in the playground and the runs pane', async () => {
    await typeInEditor(
      "import { notebook } from '@capabilities/notebook';\n\nconst note = await notebook.addNote({ title: '' });\nexport default note;\n",
    );
    expect(await typeErrors()).toBe(0);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const output = page.getByRole('region', { name: 'Run output' });
    const error = output.getByRole('alert', { name: 'Error' });
    await error.waitFor();
    const code = await error.getAttribute('data-code');
    expect(code).toMatch(/^[A-Z_]+$/);
    await error.locator('code', { hasText: code ?? '' }).waitFor();
    const text = await error.innerText();
    expect(text).toMatch(/title/);
    expect(text).toContain('notebook.addNote');
    expect(text).not.toMatch(/[{}]|"code"|"message"/);
    // The line is a button that moves the editor's cursor to the failing call.
    await error.getByRole('button', { name: /^line 3/ }).click();
    // The runs pane says the same in words.
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('table', { name: 'Runs' }).getByRole('link', { name: 'notebook.addNote({"title":""})' }).click();
    const run = page.getByRole('region', { name: 'Run' });
    const stored = run.getByRole('alert', { name: 'Error' });
    await stored.locator('code', { hasText: code ?? '' }).waitFor();
    expect(await stored.innerText()).not.toMatch(/[{}]|"code"|"message"/);
  });

  it("opens the function tester on the space's own first function; a failed call reads as a message; an approved call's response waits for the user", async () => {
    await page.getByRole('link', { name: 'Function tester' }).click();
    await page.getByRole('list', { name: 'Validation' }).getByText('is required').waitFor();
    expect(await page.getByLabel('Function').inputValue()).toBe('notebook.addNote');
    await page.getByRole('button', { name: 'Call' }).click();
    const exchange = page.getByRole('region', { name: 'Request and response' });
    const error = exchange.getByRole('alert', { name: 'Error' });
    await error.locator('code', { hasText: /^[A-Z_]+$/ }).waitFor();
    expect(await error.innerText()).toMatch(/title/);
    // A call that needs approval: approved in the inbox, its response is there on coming back.
    await page.getByLabel('Function').selectOption('notebook.deleteNote');
    await page.getByLabel('id *').fill('n-2');
    await page.getByRole('list', { name: 'Validation' }).getByText('Valid arguments.').waitFor();
    await page.getByRole('button', { name: 'Call' }).click();
    await page.locator('#approvals-count:not([hidden])').waitFor();
    await page.getByRole('link', { name: /Approvals/ }).click();
    await page.getByRole('article', { name: 'notebook.deleteNote waiting for approval' }).getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Nothing is waiting.').waitFor();
    await page.getByRole('link', { name: 'Function tester' }).click();
    await page.getByRole('region', { name: 'Request and response' }).getByLabel('Response').getByText('"deleted": "n-2"').waitFor();
    expect(await page.getByLabel('Function').inputValue()).toBe('notebook.deleteNote');
  });

  it('opens an empty editor with a hint in a space with no capability of its own', async () => {
    const empty = await makeEmptySpace('studio-empty');
    const other = await startStudio({ openSpace, cwd: empty.root, uiDir });
    try {
      await page.goto(other.url);
      await page.getByRole('link', { name: 'Playground' }).click();
      await page
        .getByLabel('Hint')
        .getByText(/no capabilities of its own yet/)
        .waitFor();
      // The editor holds nothing: what shows in it is CodeMirror's placeholder (the hint), not text.
      const editor = page.getByRole('textbox', { name: 'Program (TypeScript)' });
      await editor
        .locator('.cm-placeholder')
        .getByText(/no capabilities of its own yet/)
        .waitFor();
      const lines = await editor.locator('.cm-line').evaluateAll((found) =>
        found.map((line) => {
          const copy = line.cloneNode(true) as typeof line;
          for (const hint of copy.querySelectorAll('.cm-placeholder')) hint.remove();
          return copy.textContent;
        }),
      );
      expect(lines.join('\n')).toBe('');
      expect(await page.getByRole('button', { name: 'Starter program' }).isHidden()).toBe(true);
      expect(await typeErrors()).toBe(0);
    } finally {
      await other.close();
    }
  });
});
