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

/** Runs `script` (an ES module body, `MODULE` and `PRESTART` at hand) in a Node started as the bin is; its last line of output, parsed. */
async function inNode(script: string, env: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const base = { ...process.env };
  delete base['NODE_OPTIONS'];
  delete base['AGENT_SPACES_ENGINE'];
  delete base['AGENT_SPACES_STORE'];
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO,
    env: { ...base, ...env },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null');
}

const PRESTART = pathToFileURL(path.join(REPO, 'runtime/worker-pool/prestart.ts')).href;
const WORKER_ENTRY = pathToFileURL(path.join(REPO, 'runtime/worker-pool/worker-entry.ts')).href;

describe("run placement: the run's sandbox worker starts before the library loads", { timeout: 60_000 }, () => {
  const plain = space('prestart-plain');
  const configured = space('prestart-configured', { sandbox: { engine: 'quickjs' } });
  const withTs = space('prestart-ts-config');
  writeFileSync(path.join(withTs, 'agent-spaces.config.ts'), 'export default {};\n');

  it('looks for the config files loadConfig looks for', async () => {
    const { CONFIG_FILES } = await import('../../config/index.js');
    const { CONFIG_FILE_NAMES } = await import('./run-placement.js');
    expect(CONFIG_FILE_NAMES).toEqual([...CONFIG_FILES]);
  });

  it('starts it without reading a config only with the defaults: no config file, store, engine or other placement', async () => {
    const cases = [
      { cwd: plain },
      { cwd: plain, isolation: 'worker' },
      { cwd: plain, isolation: 'in-process' },
      { cwd: plain, isolation: 'thread' },
      { cwd: plain, engine: 'quickjs' },
      { cwd: plain, store: 'postgres://user@localhost/none' },
      { cwd: plain, config: 'other.json' },
      { cwd: configured },
      { cwd: withTs },
    ];
    // Each case in a process of its own: the first worker started waits for its pool, and a second start does nothing.
    const started = await Promise.all(
      cases.map((options) =>
        inNode(`const { prestartWithoutConfig } = await import(${JSON.stringify(MODULE)});
const started = await prestartWithoutConfig(${JSON.stringify(options)});
const { takePrestartedWorker } = await import(${JSON.stringify(PRESTART)});
const { resolveWorkerEntry } = await import(${JSON.stringify(WORKER_ENTRY)});
const child = takePrestartedWorker(resolveWorkerEntry(undefined, 'auto'));
child?.kill();
console.log(JSON.stringify([started, child !== undefined]));`),
      ),
    );
    expect(started).toEqual([
      [true, true],
      [true, true],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [false, false],
    ]);
  });

  it('not when the environment picks the engine or the store', async () => {
    const script = `const { prestartWithoutConfig } = await import(${JSON.stringify(MODULE)});
console.log(JSON.stringify(await prestartWithoutConfig({ cwd: ${JSON.stringify(plain)} })));`;
    expect(await inNode(script, { AGENT_SPACES_ENGINE: 'auto' })).toBe(false);
    expect(await inNode(script, { AGENT_SPACES_STORE: 'postgres://user@localhost/none' })).toBe(false);
  });

  it("once the config is read: the config's engine, for the worker placement only, none for a store", async () => {
    const cases = [
      { options: { cwd: configured }, engine: 'quickjs' },
      { options: { cwd: configured, engine: 'isolated-vm' }, engine: 'isolated-vm' },
      { options: { cwd: plain }, engine: 'auto' },
      { options: { cwd: configured, isolation: 'in-process' }, engine: 'quickjs' },
      { options: { cwd: configured, store: 'postgres://user@localhost/none' }, engine: 'quickjs' },
      { options: { cwd: plain, engine: 'no-such-engine' }, engine: 'auto' },
    ];
    const taken = await Promise.all(
      cases.map(({ options, engine }) =>
        inNode(`const { prestartRunWorker } = await import(${JSON.stringify(MODULE)});
await prestartRunWorker(${JSON.stringify(options)});
const { takePrestartedWorker } = await import(${JSON.stringify(PRESTART)});
const { resolveWorkerEntry } = await import(${JSON.stringify(WORKER_ENTRY)});
const child = takePrestartedWorker(resolveWorkerEntry(undefined, ${JSON.stringify(engine)}));
child?.kill();
console.log(JSON.stringify(child !== undefined));`),
      ),
    );
    expect(taken).toEqual([true, true, true, false, false, false]);
  });
});
