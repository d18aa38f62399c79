// An attacker's pass over the CLI's daemon (issue 30, cli/daemon/): the package this test run packed,
// unpacked into a folder of this file's own (package-on-line.ts `unpackedPackage`), a private XDG_RUNTIME_DIR, and the daemon met as another
// user's folder, a hostile client on its socket, a command line whose environment differs, a daemon
// killed or stopped mid-run, and output that must arrive as a command of its own would write it.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, type Frame } from '../../cli/daemon/frames.js';
import { unpackedPackage } from '../e2e/package-on-line.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'agent-spaces-hostile-daemon-'));
const pkg = path.join(root, 'pkg');
const bin = path.join(pkg, 'bin/agent-spaces.js');
const runtimeDir = path.join(root, 'runtime');
const space = path.join(root, 'space');
/** A uid that is not ours (we run as root here: the folders of "another user" are chowned to it). */
const OTHER_UID = 12345;

const PROBE = `import { existsSync, writeFileSync, statSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineTool } from 'agent-spaces';

export const probe = defineTool({
  name: 'probe',
  functions: {
    look: {
      parameters: { type: 'object', properties: {} },
      returns: { type: 'object' },
      handler: async () => {
        const file = path.join(process.cwd(), 'probe-' + process.pid + '.txt');
        writeFileSync(file, 'x');
        const mode = statSync(file).mode & 0o777;
        rmSync(file);
        return {
          leak: process.env.DAEMON_ONLY_SECRET ?? 'unset',
          city: process.env.DAEMON_TEST_CITY ?? 'unset',
          cwd: process.cwd(),
          mode: mode.toString(8),
        };
      },
    },
    flood: {
      description: 'Writes mb MiB to stdout itself (past the run output limit, which covers what the program returns and logs)',
      parameters: { type: 'object', properties: { mb: { type: 'number' } }, required: ['mb'] },
      returns: { type: 'number' },
      handler: async ({ mb }) => {
        const mib = ('f'.repeat(1023) + '\\n').repeat(1024);
        for (let i = 0; i < mb; i++) process.stdout.write(mib);
        return mb;
      },
    },
    gate: {
      description: 'Waits until the file named by $DAEMON_TEST_GATE exists',
      parameters: { type: 'object', properties: {} },
      returns: { type: 'number' },
      handler: async () => {
        while (!existsSync(process.env.DAEMON_TEST_GATE ?? '')) await new Promise((resolve) => setTimeout(resolve, 50));
        return 7;
      },
    },
  },
});
`;

beforeAll(async () => {
  // The package as packed for this test run (test (c) changes its bundle: a folder of this file's own).
  await unpackedPackage(pkg);
  mkdirSync(runtimeDir, { mode: 0o700 });
  mkdirSync(path.join(space, 'capabilities'), { recursive: true });
  mkdirSync(path.join(space, 'node_modules'));
  symlinkSync(pkg, path.join(space, 'node_modules', 'agent-spaces'), 'dir');
  writeFileSync(path.join(space, 'capabilities', 'probe.ts'), PROBE);
  writeFileSync(path.join(space, 'probe.ts'), "import { probe } from '@capabilities/probe';\nexport default await probe.look({});\n");
  // Room for the MBs of output below (1 MiB by default).
  writeFileSync(path.join(space, 'agent-spaces.config.json'), JSON.stringify({ sandbox: { maxOutputBytes: 16_000_000 } }));
  writeFileSync(path.join(space, 'bad.ts'), "const n: number = 'text';\nexport default n;\n");
  writeFileSync(
    path.join(space, 'slow.ts'),
    "console.log('waiting');\nawait new Promise((resolve) => setTimeout(resolve, 60_000));\nexport default 1;\n",
  );
  writeFileSync(
    path.join(space, 'short.ts'),
    "import { probe } from '@capabilities/probe';\nconsole.log('waiting');\nexport default await probe.gate({});\n",
  );
  writeFileSync(
    path.join(space, 'flood.ts'),
    "import { probe } from '@capabilities/probe';\nexport default await probe.flood({ mb: 96 });\n",
  );
  // About 3 MB of stdout (the result) and 1 MB of stderr (the program's console).
  writeFileSync(
    path.join(space, 'big.ts'),
    "for (let i = 0; i < 1000; i++) console.log(String(i).padStart(6, '0') + 'e'.repeat(1000));\n" +
      "export default Array.from({ length: 3000 }, (_, i) => String(i).padStart(6, '0') + 'o'.repeat(994)).join('\\n');\n",
  );
}, 300_000);

afterAll(async () => {
  await cli(['daemon', 'stop']);
  rmSync(root, { recursive: true, force: true });
}, 60_000);

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir, ...extra };
  for (const name of ['NODE_OPTIONS', 'AGENT_SPACES_ENGINE', 'AGENT_SPACES_DAEMON', 'DAEMON_ONLY_SECRET', 'TZ'])
    if (!(name in extra)) delete base[name];
  return base;
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The bin, as a person starts it; `umask` (octal text) and a limit of open files set by a shell first. */
function cli(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; umask?: string; nofile?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const shell = [
      ...(options.umask === undefined ? [] : [`umask ${options.umask}`]),
      ...(options.nofile === undefined ? [] : [`ulimit -n ${options.nofile}`]),
    ];
    const child =
      shell.length === 0
        ? spawn(process.execPath, [bin, ...args], { cwd: options.cwd ?? space, env: options.env ?? env() })
        : spawn('/bin/sh', ['-c', `${shell.join(' && ')} && exec "$0" "$@"`, process.execPath, bin, ...args], {
            cwd: options.cwd ?? space,
            env: options.env ?? env(),
          });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdin.end(options.input ?? '');
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface Status {
  running: boolean;
  active: number;
  served: number;
  warm: number;
  pid: number;
  socket: string;
}

async function status(extra: Record<string, string> = {}): Promise<Status> {
  const { stdout } = await cli(['daemon', 'status', '--json'], { env: env(extra) });
  return JSON.parse(stdout) as Status;
}

async function startDaemon(extra: Record<string, string> = {}): Promise<Status> {
  const started = await cli(['daemon', 'start', '--idle', '30', '--json'], { env: env(extra), umask: '022' });
  expect(started.code, started.stderr).toBe(0);
  return status();
}

/** Waits for `condition` (checked every 100 ms, at most `tries` times). */
async function waitFor(what: string, condition: () => boolean | Promise<boolean>, tries = 600): Promise<void> {
  for (let tried = 0; !(await condition()); tried++) {
    if (tried >= tries) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** A connection of our own to the daemon's socket: what it answered, and when it closed. */
function raw(socketPath: string) {
  const socket = connect(socketPath);
  const reader = new FrameReader();
  const frames: Frame[] = [];
  let closed = false;
  socket.on('data', (chunk: Buffer) => frames.push(...reader.push(chunk)));
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  const opened = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    socket,
    frames,
    opened,
    isClosed: () => closed,
    types: () => frames.map((frame) => frame.type).join(''),
    text: (type: string) =>
      frames
        .filter((frame) => frame.type === type)
        .map((frame) => frame.payload.toString('utf8'))
        .join(''),
  };
}

/** A request as the command line sends it. */
function request(argv: string[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    argv,
    cwd: space,
    env: env(),
    bin,
    terminal: { stdin: false, stdout: false, stderr: false },
    ...extra,
  });
}

const probe = (stdout: string) => (JSON.parse(stdout) as { result: Record<string, string> }).result;

describe('the CLI daemon, attacked (cli/daemon/)', { timeout: 180_000 }, () => {
  it("(a) never connects to, nor keeps its socket in, a folder that is not the user's own", async () => {
    const other = path.join(root, 'other-runtime');
    const folder = path.join(other, 'agent-spaces');
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    // Another user's folder, with a socket of theirs listening under our identity's name.
    const ours = await cli(['daemon', 'status', '--json']);
    const name = path.basename((JSON.parse(ours.stdout) as Status).socket);
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end(encodeFrame('J', JSON.stringify({ pid: 1, active: 0, injected: '\u001b]0;owned\u0007' })));
    });
    await new Promise<void>((resolve) => server.listen(path.join(folder, name), resolve));
    try {
      chownSync(folder, OTHER_UID, OTHER_UID);
      chownSync(path.join(folder, name), OTHER_UID, OTHER_UID);
      const otherEnv = env({ XDG_RUNTIME_DIR: other });
      const started = await cli(['daemon', 'start'], { env: otherEnv });
      expect(started.code).not.toBe(0);
      expect(started.stderr).toContain(`belongs to another user (uid ${OTHER_UID})`);
      const statusAnswer = await cli(['daemon', 'status'], { env: otherEnv });
      expect(statusAnswer.code).toBe(1);
      expect(statusAnswer.stdout + statusAnswer.stderr).toContain('belongs to another user');
      const stopAnswer = await cli(['daemon', 'stop'], { env: otherEnv });
      expect(stopAnswer.stdout + stopAnswer.stderr).toContain('belongs to another user');
      const ran = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: otherEnv });
      expect(ran.code, ran.stderr).toBe(0);
      expect(probe(ran.stdout).cwd).toBe(realpathSync(space));
      expect(connections, 'connections to the socket in the other user’s folder').toBe(0);
      expect(existsSync(path.join(folder, name)), 'their socket is left alone').toBe(true);
    } finally {
      server.close();
    }
  });

  it('(a) refuses a folder another user could swap: one in a folder of theirs, or open to all without the sticky bit', async () => {
    const theirs = path.join(root, 'their-runtime');
    mkdirSync(path.join(theirs, 'agent-spaces'), { recursive: true, mode: 0o700 });
    chmodSync(path.join(theirs, 'agent-spaces'), 0o700);
    chownSync(theirs, OTHER_UID, OTHER_UID);
    const open = path.join(root, 'open-runtime');
    mkdirSync(path.join(open, 'agent-spaces'), { recursive: true, mode: 0o700 });
    chmodSync(path.join(open, 'agent-spaces'), 0o700);
    chmodSync(open, 0o777);
    const refused: [string, string][] = [
      [theirs, `${theirs}, above the daemon's folder, belongs to another user (uid ${OTHER_UID})`],
      [open, `${open}, above the daemon's folder, is open to other users without the sticky bit`],
    ];
    for (const [folder, problem] of refused) {
      const started = await cli(['daemon', 'start'], { env: env({ XDG_RUNTIME_DIR: folder }) });
      if (started.code === 0) await cli(['daemon', 'stop'], { env: env({ XDG_RUNTIME_DIR: folder }) });
      expect(started.code, folder).not.toBe(0);
      expect(started.stderr).toContain(problem);
      expect(readdirSync(path.join(folder, 'agent-spaces'))).toEqual([]);
    }
    // Open to all with the sticky bit (as /tmp): only the owner of an entry may rename or remove it.
    chmodSync(open, 0o1777);
    const sticky = env({ XDG_RUNTIME_DIR: open });
    const started = await cli(['daemon', 'start', '--json'], { env: sticky });
    expect(started.code, started.stderr).toBe(0);
    expect((await cli(['daemon', 'stop'], { env: sticky })).code).toBe(0);
  });

  it('(a) refuses a folder that is a link, or <tmp>/agent-spaces-<uid> made by another user, and runs the command itself', async () => {
    const linked = path.join(root, 'linked-runtime');
    const target = path.join(root, 'link-target');
    mkdirSync(linked);
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, path.join(linked, 'agent-spaces'), 'dir');
    const viaLink = await cli(['daemon', 'start'], { env: env({ XDG_RUNTIME_DIR: linked }) });
    expect(viaLink.code).not.toBe(0);
    expect(viaLink.stderr).toContain('is a symbolic link');
    expect(readdirSync(target)).toEqual([]);
    // No XDG_RUNTIME_DIR: the folder under TMPDIR, pre-created by another user.
    const tmp = path.join(root, 'tmp');
    mkdirSync(tmp);
    const squatted = path.join(tmp, `agent-spaces-${process.getuid?.() ?? 0}`);
    mkdirSync(squatted, { mode: 0o700 });
    chownSync(squatted, OTHER_UID, OTHER_UID);
    const noRuntime = env({ TMPDIR: tmp });
    delete noRuntime['XDG_RUNTIME_DIR'];
    const squat = await cli(['daemon', 'start'], { env: noRuntime });
    expect(squat.code).not.toBe(0);
    expect(squat.stderr).toContain('belongs to another user');
    const ran = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: noRuntime });
    expect(ran.code, ran.stderr).toBe(0);
    expect(readdirSync(squatted)).toEqual([]);
  });

  it('(c) runs with the command line’s environment and umask, never the daemon’s; another start-up environment is never served', async () => {
    await startDaemon({ DAEMON_ONLY_SECRET: 'from-the-daemon' });
    const served = await status();
    const ran = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: 'Bergen' }), umask: '077' });
    expect(ran.code, ran.stderr).toBe(0);
    expect((await status()).served).toBe(served.served + 1);
    expect(probe(ran.stdout)).toMatchObject({ leak: 'unset', city: 'Bergen', cwd: realpathSync(space), mode: '600' });
    const others: Record<string, string>[] = [{ TZ: 'Asia/Tokyo' }, { TMPDIR: root }, { NODE_OPTIONS: '--max-old-space-size=900' }];
    for (const extra of others) {
      const before = (await status()).served;
      const other = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ ...extra, DAEMON_TEST_CITY: 'Oslo' }) });
      expect(other.code, other.stderr).toBe(0);
      expect(probe(other.stdout).city).toBe('Oslo');
      expect((await status()).served, `served with ${JSON.stringify(extra)}`).toBe(before);
    }
  });

  it('(e) carries MBs of stdout and stderr byte for byte, exit codes 0, 1, 2 and 130, and a program read from stdin', async () => {
    const before = (await status()).served;
    const local = await cli(['run', 'big.ts', '--no-check'], { env: env({ AGENT_SPACES_DAEMON: 'off' }) });
    const daemon = await cli(['run', 'big.ts', '--no-check']);
    expect(daemon.code, daemon.stderr.slice(-500)).toBe(0);
    expect(daemon.stdout.length).toBeGreaterThan(2_900_000);
    expect(daemon.stderr.length).toBeGreaterThan(900_000);
    expect(daemon.stdout === local.stdout, 'stdout as the command’s own').toBe(true);
    // The last line says how long the run took.
    const timeless = (text: string) => text.replace(/ \d+ ms\n$/, ' ms\n');
    expect(timeless(daemon.stderr) === timeless(local.stderr), 'stderr as the command’s own').toBe(true);
    const failed = await cli(['run', 'bad.ts']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('TS2322');
    const usage = await cli(['run', 'probe.ts', '--cwd', path.join(root, 'no-such-folder')]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('no such folder');
    const piped = await cli(['run', '-', '--no-check', '--json'], { input: 'export default 40 + 2;\n' });
    expect(JSON.parse(piped.stdout)).toMatchObject({ success: true, result: 42 });
    const child = spawn(process.execPath, [bin, 'run', 'slow.ts', '--no-check'], { cwd: space, env: env() });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.resume();
    await waitFor('the slow run to start', () => stderr.includes('waiting'));
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await ended).toBe(130);
    expect((await status()).served - before).toBe(5);
  });

  it('(b) closes on garbage, a huge length, half a frame and a request that never comes, and serves on', async () => {
    const { socket, served } = await status();
    const attempts: [string, Buffer][] = [
      ['text', Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')],
      ['a length of 4 GB', Buffer.from([0xff, 0xff, 0xff, 0xff, 0x52])],
      ['an empty frame', Buffer.from([0, 0, 0, 0])],
      ['an unknown type', encodeFrame('O' as never, 'x')],
    ];
    for (const [what, bytes] of attempts) {
      const client = raw(socket);
      await client.opened;
      client.socket.write(bytes);
      await waitFor(`the daemon to close on ${what}`, client.isClosed);
      expect(client.types(), what).toBe('');
    }
    // Half a frame, then gone; nothing at all (closed by the daemon after its wait for a request).
    const half = raw(socket);
    await half.opened;
    half.socket.end(encodeFrame('R', request(['run', 'probe.ts'])).subarray(0, 20));
    const silent = raw(socket);
    await silent.opened;
    await waitFor('the daemon to close a connection that never names its command', silent.isClosed, 300);
    expect(silent.types()).toBe('');
    const ran = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: 'Bodø' }) });
    expect(probe(ran.stdout).city).toBe('Bodø');
    expect((await status()).served).toBe(served + 1);
  });

  it("(b) answers a request of the wrong shape or with a folder it cannot enter with 'F', and serves on", async () => {
    const { socket, served } = await status();
    const bad: [string, string][] = [
      ['not JSON', '{argv'],
      ['null', 'null'],
      ['argv not a list', request(['run'], { argv: 'run probe.ts' })],
      ['no terminal', JSON.stringify({ argv: ['run', 'probe.ts'], cwd: space, env: {}, bin })],
      ['env of numbers', request(['run', 'probe.ts'], { env: { A: 1 } })],
      ['a missing folder', request(['run', 'probe.ts'], { cwd: path.join(root, 'gone') })],
      ['a relative folder', request(['run', 'probe.ts'], { cwd: 'space' })],
    ];
    for (const [what, payload] of bad) {
      const client = raw(socket);
      await client.opened;
      client.socket.write(Buffer.concat([encodeFrame('R', payload), encodeFrame('G')]));
      await waitFor(`an answer to ${what}`, client.isClosed);
      // Received ('K') only once its shape is right: a folder it cannot enter is found by the warm process.
      expect(client.types(), what).toBe(what === 'a missing folder' ? 'KF' : 'F');
      expect(client.text('F').length, what).toBeGreaterThan(0);
    }
    const ran = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: 'Alta' }) });
    expect(probe(ran.stdout).city).toBe('Alta');
    expect((await status()).served).toBe(served + 1);
  });

  it('(b) ignores signals other than the three, and keeps stdin sent before its answer', async () => {
    const { socket } = await status();
    const slow = raw(socket);
    await slow.opened;
    slow.socket.write(Buffer.concat([encodeFrame('R', request(['run', 'slow.ts', '--no-check'])), encodeFrame('G')]));
    await waitFor('the slow run to start', () => slow.text('e').includes('waiting'));
    for (const signal of ['SIGKILL', 'SIGSTOP', 'SIGUSR1', 'SIGQUIT', 'kill', '9', '']) slow.socket.write(encodeFrame('S', signal));
    expect((await status()).active).toBe(1);
    slow.socket.write(encodeFrame('S', 'SIGINT'));
    await waitFor('the slow run to end', () => slow.types().endsWith('X'));
    expect(JSON.parse(slow.text('X'))).toEqual({ code: 130, signal: null });
    // The program on stdin sent along with the request, before 'A' and 'W'.
    const eager = raw(socket);
    await eager.opened;
    eager.socket.write(
      Buffer.concat([
        encodeFrame('R', request(['run', '-', '--no-check', '--json'])),
        encodeFrame('G'),
        encodeFrame('I', 'export default 6 * '),
        encodeFrame('I', '7;\n'),
        encodeFrame('E'),
      ]),
    );
    await waitFor('the eager run to end', () => eager.types().endsWith('X'), 300);
    expect(JSON.parse(eager.text('O'))).toMatchObject({ success: true, result: 42 });
  });

  it('(e) a command line that does not read (a pager) slows the command: the daemon holds about a chunk of its output, not all of it', async () => {
    const { pid, socket } = await status();
    const rssMb = (): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    const before = rssMb();
    const client = connect(socket);
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    client.write(Buffer.concat([encodeFrame('R', request(['run', 'flood.ts', '--no-check'])), encodeFrame('G')]));
    client.pause();
    // Long enough for a daemon that buffered everything to have read all 96 MiB of it.
    await waitFor('the run to start', async () => (await status()).active === 1);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const held = rssMb() - before;
    const reader = new FrameReader();
    let bytes = 0;
    let ended = '';
    client.on('data', (chunk: Buffer) => {
      for (const frame of reader.push(chunk)) {
        if (frame.type === 'O') bytes += frame.payload.length;
        if (frame.type === 'X') ended = frame.payload.toString('utf8');
      }
    });
    client.resume();
    await waitFor('the run to end', () => ended !== '', 1_200);
    client.destroy();
    expect(JSON.parse(ended)).toEqual({ code: 0, signal: null });
    // Every byte came through once read: 96 MiB from the tool, then the result.
    expect(bytes).toBe(96 * 1024 * 1024 + '96\n'.length);
    expect(held, `the daemon grew by ${held.toFixed(0)} MB while its command line did not read`).toBeLessThan(32);
  });

  it('(b) gives each of many command lines at once its run, and spends no warm process on one that left', async () => {
    const { socket, pid } = await status();
    const seen = new Set<number>();
    const watch = setInterval(() => childrenOf(pid).forEach((child) => seen.add(child)), 25);
    try {
      for (let i = 0; i < 20; i++) {
        const gone = raw(socket);
        await gone.opened;
        gone.socket.write(Buffer.concat([encodeFrame('R', request(['run', 'probe.ts', '--no-check'])), encodeFrame('G')]));
        gone.socket.destroy();
      }
      const cities = ['Hamar', 'Molde', 'Narvik', 'Røros', 'Voss', 'Lom'];
      const runs = await Promise.all(
        cities.map((city) => cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: city }) })),
      );
      runs.forEach((ran, index) => {
        expect(ran.code, ran.stderr).toBe(0);
        expect(probe(ran.stdout).city).toBe(cities[index]);
      });
      await waitFor('a warm process ready again', async () => (await status()).warm > 0);
    } finally {
      clearInterval(watch);
    }
    // The ready one, a few for the runs at once (at most 4 starting at a time), and their replacements.
    expect(seen.size, 'warm processes started').toBeLessThanOrEqual(14);
  });

  it('(d) finishes a run going on at `daemon stop` and gives its command line the exit code, then ends', async () => {
    const { pid, socket } = await status();
    // The run waits at a gate (a file) the test opens only after `daemon stop` has answered.
    const gate = path.join(root, 'stop-gate');
    const child = spawn(process.execPath, [bin, 'run', 'short.ts', '--no-check', '--json'], {
      cwd: space,
      env: env({ DAEMON_TEST_GATE: gate }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const ended = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitFor('the run to start', async () => (await status()).active === 1);
    const processes = childrenOf(pid);
    const stopped = await cli(['daemon', 'stop', '--json']);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ pid, active: 1 });
    writeFileSync(gate, 'open');
    expect(await ended).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ success: true, result: 7 });
    await waitFor('the daemon and its processes to end', () => !alive(pid) && !existsSync(socket) && !processes.some(alive));
  });

  it('(d) killed with SIGKILL: the command line runs the command itself, `daemon start` replaces it, no warm process outlives it', async () => {
    const first = await startDaemon();
    await waitFor('a warm process', async () => (await status()).warm > 0);
    const warm = childrenOf(first.pid);
    expect(warm.length).toBeGreaterThan(0);
    process.kill(first.pid, 'SIGKILL');
    await waitFor('the daemon to die', () => !alive(first.pid));
    expect(existsSync(first.socket), 'the stale socket').toBe(true);
    const ran = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: 'Kirkenes' }) });
    expect(ran.code, ran.stderr).toBe(0);
    expect(probe(ran.stdout).city).toBe('Kirkenes');
    expect((await cli(['daemon', 'status'])).code).toBe(1);
    const second = await startDaemon();
    expect(second.pid).not.toBe(first.pid);
    expect(second.socket).toBe(first.socket);
    const served = await cli(['run', 'probe.ts', '--json', '--no-check']);
    expect(served.code, served.stderr).toBe(0);
    expect((await status()).served).toBe(1);
    await waitFor('the killed daemon’s warm processes to end', () => warm.every((child) => !alive(child)), 300);
  });

  it('(d) a daemon that hangs (stopped with SIGSTOP): the command line runs the command itself, and the daemon never runs it too', async () => {
    const { pid, served: before } = await status();
    process.kill(pid, 'SIGSTOP');
    try {
      const child = spawn(process.execPath, [bin, 'run', 'probe.ts', '--json', '--no-check'], {
        cwd: space,
        env: env({ DAEMON_TEST_CITY: 'Mo' }),
      });
      let stdout = '';
      let code: number | null | undefined;
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.resume();
      child.on('close', (ended) => (code = ended));
      try {
        await waitFor('the command line to give up on the hung daemon and run the command', () => code !== undefined, 600);
      } finally {
        child.kill('SIGKILL');
      }
      expect(code).toBe(0);
      expect(probe(stdout).city).toBe('Mo');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const served = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: 'Fauske' }) });
    expect(probe(served.stdout).city).toBe('Fauske');
    // Once running again the daemon read the command the command line gave up on: it got no G, ran nothing.
    expect((await status()).served).toBe(before + 1);
  });

  it('(c) a build changed on disk is never served by the daemon that preloaded the old one', async () => {
    const { pid } = await status();
    const processes = childrenOf(pid);
    const main = path.join(pkg, 'dist', 'cli', 'bundle', 'main.js');
    writeFileSync(main, readFileSync(main, 'utf8') + "\nprocess.stderr.write('the new build\\n');\n");
    const ran = await cli(['run', 'probe.ts', '--json', '--no-check']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain('the new build');
    // The old daemon is unknown to the new build's command line; it still stops on its own.
    expect((await cli(['daemon', 'status'])).code).toBe(1);
    process.kill(pid, 'SIGTERM');
    await waitFor('the old daemon to end', () => !alive(pid) && !processes.some(alive));
  });

  it('(d) a warm process that dies before it is ready: the daemon stops trying, answers F, and ends when idle', async () => {
    const folder = path.join(root, 'crash-runtime');
    mkdirSync(folder, { mode: 0o700 });
    const crash = path.join(root, 'crash-warm.mjs');
    writeFileSync(crash, 'process.exit(3);\n');
    const socketPath = path.join(folder, 'crash.sock');
    const supervisor = spawn(
      process.execPath,
      [
        path.join(pkg, 'dist', 'cli', 'daemon', 'supervisor.js'),
        socketPath,
        crash,
        // Idle time enough for three failed starts on a loaded machine (the idle stop ends the test).
        '20000',
        path.join(pkg, 'dist', 'cli', 'bundle', 'main.js'),
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
    );
    let log = '';
    supervisor.stderr?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    const exited = new Promise<number | null>((resolve) => supervisor.on('exit', (code) => resolve(code)));
    await waitFor('three failed starts', () => (log.match(/ended before it was ready/g) ?? []).length >= 3);
    const client = raw(socketPath);
    await client.opened;
    client.socket.write(Buffer.concat([encodeFrame('R', request(['run', 'probe.ts'])), encodeFrame('G')]));
    await waitFor('an answer', client.isClosed);
    expect(client.types()).toBe('KF');
    expect(await exited).toBe(0);
    expect(log).toContain('stopping: idle');
    expect((log.match(/ended before it was ready/g) ?? []).length).toBe(3);
    expect(existsSync(socketPath)).toBe(false);
  });

  it('(d) stops when idle even while asked for its status, and a flood of connections neither keeps it nor stops it', async () => {
    // A low limit of open files: the flood below passes it.
    // Idle for 30 s: longer than the flood and the two runs take (connections that name no command do not re-arm it).
    const started = await cli(['daemon', 'start', '--idle', '0.5', '--json'], { env: env(), umask: '022', nofile: 200 });
    expect(started.code, started.stderr).toBe(0);
    const { pid, socket } = JSON.parse(started.stdout) as Status;
    const flood = Array.from({ length: 400 }, () => raw(socket));
    await Promise.all(flood.map((client) => Promise.race([client.opened, waitFor('a refused connection', client.isClosed)])));
    // Past the limit the daemon closes new connections at once: the command line runs the command itself.
    const during = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: 'Vardø' }) });
    expect(during.code, during.stderr).toBe(0);
    expect(probe(during.stdout).city).toBe('Vardø');
    for (const client of flood) client.socket.destroy();
    const before = (await status()).served;
    const after = await cli(['run', 'probe.ts', '--json', '--no-check'], { env: env({ DAEMON_TEST_CITY: 'Vadsø' }) });
    expect(probe(after.stdout).city).toBe('Vadsø');
    expect((await status()).served).toBe(before + 1);
    const processes = childrenOf(pid);
    // Asked for its status more often than its idle time: still no command, so it ends.
    let asked = 0;
    await waitFor(
      'the daemon asked for its status to end when idle',
      async () => {
        asked++;
        await cli(['daemon', 'status']);
        return !alive(pid) && !existsSync(socket) && !processes.some(alive);
      },
      400,
    );
    expect(asked).toBeGreaterThan(1);
  });

  it('(d) stops when idle, with its warm processes', async () => {
    const started = await cli(['daemon', 'start', '--idle', '0.05', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const { pid, socket } = JSON.parse(started.stdout) as Status;
    const processes = childrenOf(pid);
    await waitFor('the idle daemon to end', () => !alive(pid) && !existsSync(socket) && !processes.some(alive));
  });
});
