// A space for durable tests: the ledger capability (worker/__fixtures__/ledger.ts), its own folder,
// and helpers to start `agent-spaces worker` processes on it and read what the ledger did.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FROM_DIST_ENV } from '../../test/support/dist-fresh.js';
import { makeTempDir } from '../../test/support/temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface DurableSpace {
  root: string;
  ledgerDir: string;
  /** Lines of effects.log: every performed side effect, in order. */
  effects(): string[];
  /** Names of gates/holds calls waiting (or that waited). */
  waiting(): string[];
  open(name: string): Promise<void>;
  env: Record<string, string>;
}

export async function makeDurableSpace(prefix: string, durable: Record<string, unknown> = {}): Promise<DurableSpace> {
  const root = await makeTempDir(prefix);
  const ledgerDir = path.join(root, 'ledger');
  await mkdir(ledgerDir, { recursive: true });
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify(
      {
        capabilities: [path.join(REPO, 'worker/__fixtures__/ledger.ts')],
        durable: { idempotent: ['ledger.gate', 'ledger.peek'], ...durable },
      },
      null,
      2,
    ),
  );
  const lines = (file: string): string[] =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
      : [];
  return {
    root,
    ledgerDir,
    effects: () => lines(path.join(ledgerDir, 'effects.log')),
    waiting: () => lines(path.join(ledgerDir, 'waiting.log')),
    open: (name) => writeFile(path.join(ledgerDir, `open-${name}`), ''),
    env: { LEDGER_DIR: ledgerDir },
  };
}

export interface CliProcess {
  child: ChildProcess;
  /** stderr so far. */
  stderr(): string;
  stdout(): string;
  exited: Promise<number | null>;
}

/**
 * The CLI as its own Node process (not through bin/, which would put a second process between the
 * test and the one to kill -9): the build in dist/ when the test run found it newer than the checkout
 * (test/support/dist-fresh.ts), else the sources through tsx.
 */
export function startCli(args: string[], options: { cwd: string; env?: Record<string, string> }): CliProcess {
  const entry =
    process.env[FROM_DIST_ENV] === '1'
      ? [path.join(REPO, 'dist/cli/main.js')]
      : ['--conditions=agent-spaces-source', '--import', 'tsx', path.join(REPO, 'cli/main.ts')];
  const child = spawn(process.execPath, ['--no-node-snapshot', ...entry, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, stdout: () => stdout, exited };
}
