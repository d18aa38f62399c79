/**
 * The human approving: a program controls the arguments a person is asked to approve and the text the
 * CLI prints. Control characters (ESC, CR, BEL, backspace, C1), bidi overrides and zero-width characters
 * are written visibly as escapes, and an approval always shows the exact arguments as JSON, so what is
 * approved is what runs. Each hostile case is followed by a healthy one.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControlCharacters, fillTemplate, toTerminalJson } from '../../bridge/approval-message.js';
import { createCliApprovalHandler, formatApprovalPrompt } from '../../cli/approval-prompt.js';
import type { ApprovalRequest, BridgeEvent } from '../../core/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

/** Characters that must never reach a terminal raw (newline and tab aside). */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

const HOSTILE = {
  clearScreen: '\u001b[2J\u001b[H',
  color: '\u001b[31m',
  title: '\u001b]0;pwned\u0007',
  carriageReturn: 'victim.txt\rdecoy.txt',
  backspaces: 'keep\b\b\b\bgone',
  c1: 'csi\u009b31m',
  rightToLeft: 'invoice\u202Efdp.exe',
  isolate: 'a\u2066b\u2069c',
  zeroWidth: 'pay\u200bpal',
  bom: '\ufeffname',
};

function request(params: Record<string, unknown>, message: string): ApprovalRequest {
  return { capability: 'std-fs', function: 'remove', params, message, timestamp: '2026-01-01T00:00:00.000Z' };
}

/** The JSON after "arguments: " in a prompt, parsed. */
function shownArguments(prompt: string): unknown {
  const line = prompt.split('\n').find((candidate) => candidate.startsWith('  arguments: '));
  if (line === undefined) throw new Error(`no arguments line in ${JSON.stringify(prompt)}`);
  return JSON.parse(line.slice('  arguments: '.length));
}

describe('terminal: escaping', () => {
  it.each([
    ['ESC sequences', `a${HOSTILE.clearScreen}b${HOSTILE.color}c`, 'a\\x1b[2J\\x1b[Hb\\x1b[31mc'],
    ['OSC with BEL', HOSTILE.title, '\\x1b]0;pwned\\x07'],
    ['carriage return', HOSTILE.carriageReturn, 'victim.txt\\rdecoy.txt'],
    ['backspace', HOSTILE.backspaces, 'keep\\x08\\x08\\x08\\x08gone'],
    ['C1 control', HOSTILE.c1, 'csi\\x9b31m'],
    ['bidi override', HOSTILE.rightToLeft, 'invoice\\u202efdp.exe'],
    ['bidi isolates', HOSTILE.isolate, 'a\\u2066b\\u2069c'],
    ['zero-width space', HOSTILE.zeroWidth, 'pay\\u200bpal'],
    ['byte order mark', HOSTILE.bom, '\\ufeffname'],
    ['DEL', 'a\u007fb', 'a\\x7fb'],
  ])('writes %s visibly', (_name, input, expected) => {
    expect(escapeControlCharacters(input)).toBe(expected);
    expect(escapeControlCharacters('plain text, ünïcödé, emoji 🚆')).toBe('plain text, ünïcödé, emoji 🚆');
  });

  it('keeps newlines and tabs in output, and escapes them where a line must stay one line', () => {
    expect(escapeControlCharacters('a\n\tb')).toBe('a\n\tb');
    expect(escapeControlCharacters('a\n\tb\r', { keepLayout: false })).toBe('a\\n\\tb\\r');
  });

  it('writes JSON that is still the same value, with nothing raw a terminal would act on', () => {
    const value = { ...HOSTILE, nested: [HOSTILE.rightToLeft, { [HOSTILE.c1]: 1 }] };
    const json = toTerminalJson(value, 2);
    expect(json).not.toMatch(UNSAFE);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('fills an approval template with argument values written visibly', () => {
    expect(fillTemplate('Delete {path}?', { path: HOSTILE.carriageReturn })).toBe('Delete victim.txt\\rdecoy.txt?');
    expect(fillTemplate('Delete {path}?', { path: 'notes.txt' })).toBe('Delete notes.txt?');
  });
});

describe('terminal: the approval prompt', () => {
  it.each(Object.entries(HOSTILE))('shows the exact argument for a path with %s, escaped', (_name, hostilePath) => {
    const prompt = formatApprovalPrompt(request({ path: hostilePath }, `Delete "${hostilePath}" from the workspace?`));
    expect(prompt.replace(/\n/g, '')).not.toMatch(UNSAFE);
    expect(shownArguments(prompt)).toEqual({ path: hostilePath });
    // The healthy case after it: a plain path reads plainly.
    expect(formatApprovalPrompt(request({ path: 'notes.txt' }, 'Delete "notes.txt" from the workspace?'))).toBe(
      '\n[approval] std-fs.remove: Delete "notes.txt" from the workspace?\n  arguments: {"path":"notes.txt"}\nAllow? [y/N] ',
    );
  });

  it('shows the arguments even when the message leaves them out or lies about them', () => {
    const prompt = formatApprovalPrompt(request({ path: '../../etc/passwd', recursive: true }, 'Clean up the temporary files?'));
    expect(prompt).toContain('Clean up the temporary files?\n  arguments: {"path":"../../etc/passwd","recursive":true}\nAllow? [y/N] ');
  });

  it('keeps a message on one line: a newline in it cannot fake the arguments line or the question', () => {
    const prompt = formatApprovalPrompt(request({ path: 'secret.db' }, 'Delete "cache"?\n  arguments: {"path":"cache"}\nAllow? [y/N] y\n'));
    expect(prompt.split('\n')).toHaveLength(4);
    expect(shownArguments(prompt)).toEqual({ path: 'secret.db' });
  });
});

/** A terminal for the CLI's prompt: answers each question from `answers` as soon as it is asked. */
function scriptedTerminal() {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = new PassThrough();
  const prompts: string[] = [];
  const answers: string[] = [];
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
    if (!shown.endsWith('Allow? [y/N] ')) return;
    prompts.push(shown);
    shown = '';
    input.write(`${answers.shift() ?? 'n'}\n`);
  });
  return { terminal: { input, output }, prompts, answers };
}

async function writeSpace(prefix: string): Promise<string> {
  const root = await makeTempDir(prefix);
  await mkdir(path.join(root, 'tools'));
  await mkdir(path.join(root, 'workspace'));
  // A tool whose approval message names nothing of what it is about to do.
  await writeFile(
    path.join(root, 'tools', 'cleanup.json'),
    JSON.stringify({
      name: 'cleanup',
      implementation: './cleanup.mjs',
      functions: [
        {
          name: 'purge',
          description: 'Purges a folder.',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          requiresApproval: true,
          approvalMessage: 'Clean up the temporary files?',
        },
      ],
    }),
  );
  await writeFile(path.join(root, 'tools', 'cleanup.mjs'), 'export function purge({ path }) {\n  return { purged: path };\n}\n');
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify({ capabilities: ['tools/*.json'], std: { fs: { root: 'workspace' } } }),
  );
  return root;
}

describe('terminal: approving the calls of a sandbox run at the CLI prompt', () => {
  let root: string;
  let space: Space;
  const events: BridgeEvent[] = [];
  const { terminal, prompts, answers } = scriptedTerminal();

  beforeAll(async () => {
    root = await writeSpace('terminal');
    const approvalHandler = createCliApprovalHandler(undefined, terminal);
    space = await createSpace({ cwd: root, ...(approvalHandler ? { approvalHandler } : {}), onEvent: (event) => events.push(event) });
    await space.build();
  });
  afterAll(async () => {
    await space.close();
  });

  async function removeApproved(file: string) {
    prompts.length = 0;
    events.length = 0;
    answers.push('y');
    const run = await space.run(
      `import { remove, writeFile } from '@capabilities/std-fs';\nconst file = ${JSON.stringify(file)};\nawait writeFile({ path: file, content: 'x' });\nawait writeFile({ path: 'victim.txt', content: 'keep me' });\nexport default await remove({ path: file });`,
    );
    expect(run, JSON.stringify(run.error)).toMatchObject({ success: true, result: { removed: true } });
    expect(prompts).toHaveLength(1);
    return { prompt: prompts[0] as string, run };
  }

  it.each([
    ['a carriage return', HOSTILE.carriageReturn],
    ['a bidi override', HOSTILE.rightToLeft],
    ['escape sequences', `report${HOSTILE.clearScreen}${HOSTILE.title}.txt`],
  ])('deletes exactly the file the prompt showed, for a name with %s', async (_name, file) => {
    const hostile = await removeApproved(file);
    expect(hostile.prompt.replace(/\n/g, '')).not.toMatch(UNSAFE);
    expect(shownArguments(hostile.prompt)).toEqual({ path: file });
    const remaining = await readdir(path.join(root, 'workspace'));
    expect(remaining).toEqual(['victim.txt']);
    const asked = events.find((event) => event.type === 'approval-required');
    expect(asked?.type === 'approval-required' ? asked.message : '').not.toMatch(UNSAFE);

    const healthy = await removeApproved('notes.txt');
    expect(healthy.prompt).toBe(
      '\n[approval] std-fs.remove: Delete "notes.txt" from the workspace?\n  arguments: {"path":"notes.txt"}\nAllow? [y/N] ',
    );
  });

  it("shows the real argument when the tool's message template leaves it out", async () => {
    prompts.length = 0;
    answers.push('n');
    const run = await space.run("import { purge } from '@capabilities/cleanup';\nexport default await purge({ path: '/' });");
    expect(run).toMatchObject({ success: false, error: { code: 'APPROVAL_DENIED' } });
    expect(prompts).toEqual(['\n[approval] cleanup.purge: Clean up the temporary files?\n  arguments: {"path":"/"}\nAllow? [y/N] ']);

    answers.push('y');
    const healthy = await space.run("import { purge } from '@capabilities/cleanup';\nexport default await purge({ path: 'tmp' });");
    expect(healthy).toMatchObject({ success: true, result: { purged: 'tmp' } });
  });
});

describe('terminal: the CLI', { timeout: 180_000 }, () => {
  let root: string;
  beforeAll(async () => {
    root = await writeSpace('terminal-cli');
  });

  const program = async (code: string): Promise<string> => {
    const file = path.join(root, `program-${Math.random().toString(36).slice(2)}.ts`);
    await writeFile(file, code);
    return file;
  };
  const HOSTILE_PROGRAM = [
    "import { remove, writeFile } from '@capabilities/std-fs';",
    `const file = ${JSON.stringify(HOSTILE.rightToLeft)};`,
    `console.log(${JSON.stringify(`${HOSTILE.clearScreen}${HOSTILE.color}ALERT${HOSTILE.title} ${HOSTILE.carriageReturn} ${HOSTILE.c1}`)});`,
    "await writeFile({ path: file, content: 'x' });",
    'export default await remove({ path: file });',
  ].join('\n');
  const HEALTHY_PROGRAM =
    "import { remove, writeFile } from '@capabilities/std-fs';\nawait writeFile({ path: 'plain.txt', content: 'x' });\nexport default await remove({ path: 'plain.txt' });";

  function expectNothingRaw(text: string): void {
    for (const sequence of [HOSTILE.clearScreen, HOSTILE.color, HOSTILE.title, HOSTILE.carriageReturn, HOSTILE.c1, HOSTILE.rightToLeft])
      expect(text).not.toContain(sequence);
  }

  it('prints approvals with control characters escaped, and --json stays valid JSON with nothing raw (--approve all -v --json)', async () => {
    const run = (file: string) =>
      execa(process.execPath, [BIN, 'run', file, '--approve', 'all', '-v', '--json'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '' },
        extendEnv: false,
        reject: false,
        timeout: 90_000,
        stdin: 'ignore',
      });
    const hostile = await run(await program(HOSTILE_PROGRAM));
    expect(hostile.exitCode, hostile.stderr).toBe(0);
    expectNothingRaw(hostile.stdout + hostile.stderr);
    expect(hostile.stdout).not.toMatch(UNSAFE);
    expect(hostile.stderr).toContain(
      '[approval] std-fs.remove: Delete "invoice\\u202efdp.exe" from the workspace? arguments: {"path":"invoice\\u202efdp.exe"}',
    );
    expect(JSON.parse(hostile.stdout)).toMatchObject({
      success: true,
      result: { path: HOSTILE.rightToLeft, removed: true },
      logs: [{ message: `${HOSTILE.clearScreen}${HOSTILE.color}ALERT${HOSTILE.title} ${HOSTILE.carriageReturn} ${HOSTILE.c1}` }],
    });
    expect(existsSync(path.join(root, 'workspace', HOSTILE.rightToLeft))).toBe(false);

    const healthy = await run(await program(HEALTHY_PROGRAM));
    expect(healthy.exitCode, healthy.stderr).toBe(0);
    expect(healthy.stderr).toContain('[approval] std-fs.remove: Delete "plain.txt" from the workspace? arguments: {"path":"plain.txt"}');
    expect(JSON.parse(healthy.stdout)).toMatchObject({ success: true, result: { path: 'plain.txt', removed: true } });
  });

  it('asks on a real terminal after the logs written before the call, with the exact arguments, all escaped', async () => {
    // `script` gives the CLI a pseudo-terminal; the answer typed ahead waits in it until the prompt reads it.
    const ask = async (file: string, answer: string) =>
      execa('script', ['-qec', `${process.execPath} ${BIN} run ${file}`, '/dev/null'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', TERM: 'dumb' },
        extendEnv: false,
        reject: false,
        timeout: 90_000,
        input: `${answer}\n`,
      });
    const hostile = await ask(await program(HOSTILE_PROGRAM), 'y');
    expect(hostile.exitCode, hostile.stdout).toBe(0);
    expectNothingRaw(hostile.stdout);
    const log = hostile.stdout.indexOf('\\x1b[2J\\x1b[H\\x1b[31mALERT\\x1b]0;pwned\\x07 victim.txt\\rdecoy.txt csi\\x9b31m');
    const prompt = hostile.stdout.indexOf(
      '[approval] std-fs.remove: Delete "invoice\\u202efdp.exe" from the workspace?\r\n  arguments: {"path":"invoice\\u202efdp.exe"}\r\nAllow? [y/N] ',
    );
    expect(log).toBeGreaterThanOrEqual(0);
    expect(prompt).toBeGreaterThan(log);
    expect(hostile.stdout).toContain('"path": "invoice\\u202efdp.exe"');
    expect(existsSync(path.join(root, 'workspace', HOSTILE.rightToLeft))).toBe(false);

    const healthy = await ask(await program(HEALTHY_PROGRAM), 'y');
    expect(healthy.exitCode, healthy.stdout).toBe(0);
    expect(healthy.stdout).toContain('arguments: {"path":"plain.txt"}');
  });
});
