// `run` decides before its engine loads whether it makes an isolate in its own process with an engine
// that needs --no-node-snapshot (the bin then starts Node again with the flag). Asked in a Node
// started without the flag, as the bin is, and in one with it.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const MODULE = pathToFileURL(path.join(REPO, 'cli/commands/run-placement.ts')).href;
const root = mkdtempSync(path.join(os.tmpdir(), 'agent-spaces-run-placement-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function space(name: string, config?: object): string {
  const folder = path.join(root, name);
  mkdirSync(folder, { recursive: true });
  if (config !== undefined) writeFileSync(path.join(folder, 'agent-spaces.config.json'), JSON.stringify(config));
  return folder;
}

/** `needsIsolateFlag` of each case, asked in one Node process started with `nodeFlags`. */
async function answers(cases: object[], nodeFlags: string[]): Promise<boolean[]> {
  const script = `const { needsIsolateFlag } = await import(${JSON.stringify(MODULE)});
const answers = [];
for (const options of ${JSON.stringify(cases)}) answers.push(await needsIsolateFlag(options));
console.log(JSON.stringify(answers));`;
  const env = { ...process.env };
  delete env['NODE_OPTIONS'];
  delete env['AGENT_SPACES_ENGINE'];
  const { stdout } = await promisify(execFile)(process.execPath, [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO,
    env,
  });
  return JSON.parse(stdout) as boolean[];
}

describe('run placement: whether the CLI needs Node started with --no-node-snapshot', { timeout: 60_000 }, () => {
  const plain = space('plain');
  const inProcess = space('in-process', { sandbox: { isolation: 'in-process' } });
  const inProcessQuickJs = space('in-process-quickjs', { sandbox: { isolation: 'in-process', engine: 'quickjs' } });
  const broken = space('broken');
  writeFileSync(path.join(broken, 'agent-spaces.config.json'), '{ not json');
  const cases = [
    { cwd: plain },
    { cwd: plain, isolation: 'in-process' },
    { cwd: plain, isolation: 'in-process', engine: 'isolated-vm' },
    { cwd: plain, isolation: 'in-process', engine: 'quickjs' },
    { cwd: inProcess },
    { cwd: inProcess, isolation: 'worker' },
    { cwd: inProcess, engine: 'quickjs' },
    { cwd: inProcessQuickJs },
    { cwd: inProcessQuickJs, engine: 'isolated-vm' },
    { cwd: inProcess, store: 'postgres://user@localhost/none' },
    { cwd: plain, isolation: 'in-process', engine: 'no-such-engine' },
    { cwd: broken, isolation: 'in-process' },
    { cwd: plain, isolation: 'thread' },
    { cwd: plain, isolation: 'thread', engine: 'quickjs' },
  ];

  it('without the flag: only isolates made in this process (in-process or on a thread) by isolated-vm (or auto) need it', async () => {
    expect(await answers(cases, [])).toEqual([false, true, true, false, true, false, false, false, true, false, false, false, true, false]);
  });

  it('with the flag (on the command line or in NODE_OPTIONS) nothing needs it again', async () => {
    expect(await answers(cases, ['--no-node-snapshot'])).toEqual(cases.map(() => false));
  });
});
