// Ctrl-C and SIGTERM end a run the way a shell user expects: "interrupted" on stderr, exit 130 (143 for
// SIGTERM), no failure blamed on the sandbox, and nothing the run started (sandbox worker, MCP server,
// the CLI process behind the bin) left running. Through the bin as a user calls it, and through the
// node_modules/.bin symlink npm scripts and global installs go through.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeExampleSpace, REPO } from '../support/example-space.js';
import { FROM_DIST_ENV } from '../support/dist-fresh.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

// Calls the stations MCP server (so its process is running), says so, then waits far longer than the test.
const PROGRAM = `import { stations } from '@capabilities/mcp-stations';
const info = await stations.stationInfo({ name: 'Harbor' });
console.log('started', info.name);
await new Promise((resolve) => setTimeout(() => resolve(undefined), 120_000));
export default 'not reached';
`;

/** Every process below `root`, read from /proc. */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Whether a process still runs (a zombie waiting for its parent to read its status has ended). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Processes of `pids` still running once they had up to 20 s to end. */
async function survivors(pids: number[]): Promise<number[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (!pids.some(isRunning)) return [];
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return pids.filter(isRunning);
}

interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  stdout: string;
  descendants: number[];
}

/**
 * Starts `command` (in a process group of its own, as a shell starts a job), waits for the program's
 * "started" line, sends `signal` to the whole group (Ctrl-C at a terminal) or to the process alone
 * (`kill <pid>`), and waits for the end.
 */
async function interrupt(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; signal: NodeJS.Signals; to: 'group' | 'process' },
): Promise<Interrupted> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const pid = child.pid as number;
  const started = await Promise.race([
    (async () => {
      while (!stderr.includes('started Harbor')) await new Promise((resolve) => setTimeout(resolve, 100));
      return true;
    })(),
    ended.then(() => false),
  ]);
  if (!started) throw new Error(`the run ended before it started: ${stderr}`);
  const descendants = descendantsOf(pid);
  process.kill(options.to === 'group' ? -pid : pid, options.signal);
  const { code, signal } = await ended;
  return { code, signal, stderr, stdout, descendants };
}

describe('an interrupted run', { timeout: 240_000 }, () => {
  let space: { root: string; env: Record<string, string> };

  beforeAll(async () => {
    space = await makeExampleSpace('interrupt');
    await writeFile(path.join(space.root, 'wait.ts'), PROGRAM);
    const build = await execa(process.execPath, [BIN, 'capabilities', 'build'], {
      cwd: space.root,
      env: space.env,
      reject: false,
      timeout: 180_000,
    });
    expect(build.exitCode, build.stderr).toBe(0);
  }, 240_000);

  it('Ctrl-C at a terminal: "interrupted", exit 130, no sandbox failure reported, nothing left running', async () => {
    const result = await interrupt(process.execPath, [BIN, 'run', 'wait.ts'], { ...space, cwd: space.root, signal: 'SIGINT', to: 'group' });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/^agent-spaces: interrupted$/m);
    expect(result.stderr).not.toMatch(/✗|crash|died|memory/i);
    expect(result.stdout).toBe('');
    // Its sandbox worker and the stations server at least, and from the sources the CLI process the bin
    // started (the build runs `run` in the bin's own process: AGENT_SPACES_FROM_DIST, set by the test run).
    expect(result.descendants.length).toBeGreaterThanOrEqual(process.env[FROM_DIST_ENV] === '1' ? 2 : 3);
    expect(await survivors(result.descendants)).toEqual([]);
  });

  it('through node_modules/.bin (npm scripts, global installs), kill -INT of the bin alone: exit 130, nothing left running', async () => {
    const bin = path.join(space.root, 'node_modules/.bin');
    await mkdir(bin, { recursive: true });
    const link = path.join(bin, 'agent-spaces');
    if (!existsSync(link)) await symlink(BIN, link);
    // From the sources, whatever the test run chose: the bin starts the CLI behind it, and forwards the signal.
    const env = { ...space.env, [FROM_DIST_ENV]: '0' };
    const result = await interrupt(link, ['run', 'wait.ts'], { ...space, env, cwd: space.root, signal: 'SIGINT', to: 'process' });
    expect(result.descendants.length).toBeGreaterThanOrEqual(3);
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/^agent-spaces: interrupted$/m);
    expect(result.stderr).not.toMatch(/✗|crash|died/i);
    expect(await survivors(result.descendants)).toEqual([]);
  });

  it('SIGTERM: exit 143, nothing left running', async () => {
    const result = await interrupt(process.execPath, [BIN, 'run', 'wait.ts'], {
      ...space,
      cwd: space.root,
      signal: 'SIGTERM',
      to: 'group',
    });
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toMatch(/^agent-spaces: interrupted$/m);
    expect(await survivors(result.descendants)).toEqual([]);
  });
});
