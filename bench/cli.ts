/**
 * CLI start-up (issue 30, "where a person waits"): whole `agent-spaces` commands started as a person
 * starts them, timed from spawn to exit, against `node -e 0` timed in the same round.
 *
 * The package is the build in dist/ (`npm run build` first), started through bin/agent-spaces.js from a
 * folder that holds no sources, as an installed package is (in the checkout the bin runs the sources
 * through tsx instead). `AGENT_SPACES_BENCH_DIST=<folder>` times another build (a "before"): a folder
 * named dist whose parent has the package.json and a node_modules (a link to the checkout's will do); a
 * bin/agent-spaces.js beside that dist starts it (else the checkout's bin). `AGENT_SPACES_BENCH_BEFORE=<dist
 * folder>` adds that build's commands to the same rounds, labelled "before:", for a before/after interleaved.
 *
 * Two spaces: the README's 30-second example (capabilities/weather.ts, a TypeScript capability that the
 * host imports through tsx) and one without capability files (std only). The program is
 * `export default 1 + 1;` (which never calls weather.ts, so its host side is not loaded) and, in the README's
 * space, one that calls `weather.getWeather`; every run's output and exit code are checked. Rounds run every command
 * once, the order rotating each round; the first round warms up and is not counted. A ratio is the
 * command's wall time over `node -e 0`'s in the same round; the table gives the median over rounds, and
 * the CPU time (user + system) of the command and of the processes it waited for, which moves less with
 * the load of a shared machine than the wall time does.
 *
 * The `run` commands are timed again through the user's daemon (`agent-spaces daemon start`, its own
 * XDG_RUNTIME_DIR): the command line hands the run to a warm process.
 *
 * `npm run bench -- cli [--reps N]` (default 5 rounds).
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './median.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PROGRAM = 'export default 1 + 1;\n';
/** The README space's program that calls its TypeScript capability: the host imports weather.ts (tsx) for it. */
const CALLING_PROGRAM =
  "import { weather } from '@capabilities/weather';\nexport default (await weather.getWeather({ city: 'Oslo' })).celsius;\n";

const WEATHER = `import { defineFunction, defineTool } from 'agent-spaces';

export const weather = defineTool({
  name: 'weather',
  functions: {
    getWeather: defineFunction({
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      returns: { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] },
      handler: async ({ city }) => ({ celsius: city === 'Oslo' ? 3 : 20 }),
    }),
  },
});
`;

interface Command {
  label: string;
  args: string[];
  cwd: string;
  /** Run through the user's daemon started for this package (`agent-spaces daemon start`): wait for its warm process first. */
  daemon?: boolean;
  /** The ratio to `node -e 0` the issue asks for, if any. */
  target?: number;
  expect: (stdout: string) => boolean;
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** User and system CPU time of the command and the processes it waited for. */
  cpuMs: number;
}

/**
 * Starts `node <args>` under a shell that reports, after it ends, the CPU time of its reaped children
 * (`times`, on fd 3): the command and every process it started and waited for (the sandbox worker).
 */
function time(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/bin/sh', ['-c', '"$0" "$@"; status=$?; times >&3; exit $status', process.execPath, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let times = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    (child.stdio[3] as NodeJS.ReadableStream).setEncoding('utf8').on('data', (chunk: string) => (times += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      // `times`: the shell's own user and system time, then its children's, as 0m1.234s 0m0.056s.
      const seconds = [...(times.trim().split('\n')[1] ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map(
        (match) => Number(match[1]) * 60 + Number(match[2]),
      );
      if (seconds.length !== 2) {
        reject(new Error(`no CPU times from the shell for node ${args.join(' ')} (got ${JSON.stringify(times)})`));
        return;
      }
      resolve({ code, stdout, stderr, ms, cpuMs: ((seconds[0] as number) + (seconds[1] as number)) * 1000 });
    });
  });
}

function parseReps(): number {
  const at = process.argv.indexOf('--reps');
  if (at === -1) return 5;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1 || value > 100)
    throw new Error(`--reps takes a whole number from 1 to 100 (got "${process.argv[at + 1] ?? ''}")`);
  return value;
}

/** A package folder like an installed one: bin, package.json, the build, and the checkout's node_modules. */
function makePackage(root: string, dist: string, name = 'agent-spaces'): string {
  const pkg = path.join(root, name);
  mkdirSync(path.join(pkg, 'bin'), { recursive: true });
  // A build with its own bin beside it (a "before" made from an older tree) is started through that bin.
  const ownBin = path.join(path.dirname(dist), 'bin/agent-spaces.js');
  copyFileSync(existsSync(ownBin) ? ownBin : path.join(REPO, 'bin/agent-spaces.js'), path.join(pkg, 'bin/agent-spaces.js'));
  copyFileSync(path.join(REPO, 'package.json'), path.join(pkg, 'package.json'));
  // A copy, not a link: Node resolves a module to its real path, and the build's own files must be found
  // in this package (the daemon refuses to serve a checkout, which a link to the repo's dist/ would be).
  cpSync(dist, path.join(pkg, 'dist'), { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
  return pkg;
}

/** The `agent-spaces` commands of `commands` again, for the build of `pkg` in its own spaces, labelled `label`. */
async function commandsOfBuild(
  root: string,
  pkg: string,
  label: string,
  commands: Command[],
  spaces: [string, string],
): Promise<Command[]> {
  const bin = path.join(pkg, 'bin', 'agent-spaces.js');
  const readme = makeSpace(root, `${label}-readme-space`, pkg, true);
  const plain = makeSpace(root, `${label}-plain-space`, pkg, false);
  for (const space of [readme, plain]) {
    const built = await time([bin, 'capabilities', 'build'], space);
    if (built.code !== 0) throw new Error(`capabilities build in ${space} exited ${built.code}: ${built.stderr}`);
  }
  return commands
    .slice(1)
    .filter((command) => command.daemon !== true)
    .map((command) => ({
      ...command,
      label: `${label}: ${command.label}`,
      args: [bin, ...command.args.slice(1)],
      cwd: command.cwd === spaces[0] ? readme : plain,
    }));
}

function makeSpace(root: string, name: string, pkg: string, capability: boolean): string {
  const space = path.join(root, name);
  mkdirSync(path.join(space, 'node_modules'), { recursive: true });
  symlinkSync(pkg, path.join(space, 'node_modules', 'agent-spaces'), 'dir');
  if (capability) {
    mkdirSync(path.join(space, 'capabilities'));
    writeFileSync(path.join(space, 'capabilities', 'weather.ts'), WEATHER);
    writeFileSync(path.join(space, 'calls-weather.ts'), CALLING_PROGRAM);
  }
  writeFileSync(path.join(space, 'trivial.ts'), PROGRAM);
  return space;
}

let servedSoFar = 0;

/** Status of the bench's daemon (`daemon status --json`). */
async function daemonStatus(bin: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ served: number; warm: number }> {
  const status = await time([bin, 'daemon', 'status', '--json'], cwd, env);
  if (status.code !== 0) throw new Error(`daemon status exited ${status.code}: ${status.stdout}${status.stderr}`);
  return JSON.parse(status.stdout) as { served: number; warm: number };
}

/** Until the daemon has a warm process ready (it starts the next as it hands one out). */
async function warmProcessReady(bin: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const status = await daemonStatus(bin, cwd, env);
    servedSoFar = status.served;
    if (status.warm > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the daemon had no warm process ready after 600 tries');
}

/** Whether the run just timed was served by the daemon (its count of commands served went up by one). */
async function servedBy(bin: string, cwd: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const { served } = await daemonStatus(bin, cwd, env);
  const one = served === servedSoFar + 1;
  servedSoFar = served;
  return one;
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' / ');
}

export async function run(): Promise<string> {
  const reps = parseReps();
  const dist = path.resolve(process.env['AGENT_SPACES_BENCH_DIST'] ?? path.join(REPO, 'dist'));
  const entry = path.join(dist, 'cli', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first (or point AGENT_SPACES_BENCH_DIST at a build)`);
  const version = (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-spaces-bench-cli-'));
  try {
    const pkg = makePackage(root, dist);
    const bin = path.join(pkg, 'bin', 'agent-spaces.js');
    const readme = makeSpace(root, 'readme-space', pkg, true);
    const plain = makeSpace(root, 'plain-space', pkg, false);
    for (const space of [readme, plain]) {
      const built = await time([bin, 'capabilities', 'build'], space);
      if (built.code !== 0) throw new Error(`capabilities build in ${space} exited ${built.code}: ${built.stderr}`);
    }
    const isTwo = (stdout: string): boolean => stdout === '2\n';
    const commands: Command[] = [
      { label: '`node -e 0` (baseline)', args: ['-e', '0'], cwd: plain, expect: (stdout) => stdout === '' },
      { label: '`agent-spaces --version`', args: [bin, '--version'], cwd: plain, expect: (stdout) => stdout === `${version}\n` },
      {
        label: '`run --no-check`, space without capability files',
        args: [bin, 'run', '--no-check', 'trivial.ts'],
        cwd: plain,
        target: 4,
        expect: isTwo,
      },
      {
        label: '`run` (type-checked), space without capability files',
        args: [bin, 'run', 'trivial.ts'],
        cwd: plain,
        target: 8,
        expect: isTwo,
      },
      {
        label: "`run --no-check`, the README's space (weather.ts)",
        args: [bin, 'run', '--no-check', 'trivial.ts'],
        cwd: readme,
        target: 4,
        expect: isTwo,
      },
      {
        label: "`run` (type-checked), the README's space (weather.ts)",
        args: [bin, 'run', 'trivial.ts'],
        cwd: readme,
        target: 8,
        expect: isTwo,
      },
      // Tool files load on a module's first call: these pay for weather.ts, the trivial program does not.
      {
        label: "`run --no-check`, the README's space, a program calling weather.getWeather",
        args: [bin, 'run', '--no-check', 'calls-weather.ts'],
        cwd: readme,
        expect: (stdout) => stdout === '3\n',
      },
      {
        label: "`run` (type-checked), the README's space, a program calling weather.getWeather",
        args: [bin, 'run', 'calls-weather.ts'],
        cwd: readme,
        expect: (stdout) => stdout === '3\n',
      },
    ];
    // The same runs through the user's daemon (`agent-spaces daemon start`), in a folder of the bench's
    // own: every other command is told to ignore it (AGENT_SPACES_DAEMON=off).
    const runtimeDir = path.join(root, 'runtime');
    mkdirSync(runtimeDir, { mode: 0o700 });
    const daemonEnv: NodeJS.ProcessEnv = { ...process.env, XDG_RUNTIME_DIR: runtimeDir };
    delete daemonEnv['AGENT_SPACES_DAEMON'];
    const plainEnv: NodeJS.ProcessEnv = { ...process.env, AGENT_SPACES_DAEMON: 'off' };
    const daemonCommands = commands
      .filter((command) => command.args[1] === 'run')
      .map((command) => ({
        ...command,
        label: `${command.label}, through the daemon`,
        daemon: true,
      }));
    const started = await time([bin, 'daemon', 'start', '--idle', '60'], plain, daemonEnv);
    if (started.code !== 0) throw new Error(`daemon start exited ${started.code}: ${started.stderr}`);
    commands.push(...daemonCommands);
    // AGENT_SPACES_BENCH_BEFORE=<dist folder>: that build's commands too, in the same rounds (interleaved).
    const before = process.env['AGENT_SPACES_BENCH_BEFORE'];
    if (before !== undefined && before !== '') {
      const beforeDist = path.resolve(before);
      if (!existsSync(path.join(beforeDist, 'cli', 'main.js')))
        throw new Error(`${beforeDist}/cli/main.js is missing (AGENT_SPACES_BENCH_BEFORE)`);
      const beforePkg = makePackage(path.join(root, 'before'), beforeDist);
      commands.push(...(await commandsOfBuild(root, beforePkg, 'before', commands, [readme, plain])));
    }
    const loadBefore = loadAverage();
    const times = commands.map(() => [] as number[]);
    const ratios = commands.map(() => [] as number[]);
    const cpuRatios = commands.map(() => [] as number[]);
    const cpuTimes = commands.map(() => [] as number[]);
    for (let round = 0; round <= reps; round += 1) {
      const order = commands.map((_, index) => (index + round) % commands.length);
      const roundMs: number[] = new Array<number>(commands.length).fill(Number.NaN);
      const roundCpuMs: number[] = new Array<number>(commands.length).fill(Number.NaN);
      for (const index of order) {
        const command = commands[index] as Command;
        // Before every command, not only the daemon's: after serving a run the daemon starts its next warm
        // process (a second of CPU on a 2-core machine), and a command timed meanwhile shares the cores with it.
        await warmProcessReady(bin, plain, daemonEnv);
        const finished = await time(command.args, command.cwd, command.daemon === true ? daemonEnv : plainEnv);
        if (command.daemon === true && !(await servedBy(bin, plain, daemonEnv)))
          throw new Error(`${command.label}: not served by the daemon`);
        if (finished.code !== 0 || !command.expect(finished.stdout)) {
          throw new Error(
            `${command.label} in ${command.cwd}: exit ${finished.code}, stdout ${JSON.stringify(finished.stdout)}, stderr ${JSON.stringify(finished.stderr.slice(0, 2000))}`,
          );
        }
        roundMs[index] = finished.ms;
        roundCpuMs[index] = finished.cpuMs;
      }
      console.error(`bench: cli round ${round}${round === 0 ? ' (warm-up)' : ''}: ${roundMs.map((ms) => Math.round(ms)).join(' / ')} ms`);
      if (round === 0) continue;
      const baseline = roundMs[0] as number;
      const cpuBaseline = roundCpuMs[0] as number;
      roundMs.forEach((ms, index) => {
        times[index]?.push(ms);
        ratios[index]?.push(ms / baseline);
        cpuTimes[index]?.push(roundCpuMs[index] as number);
        cpuRatios[index]?.push((roundCpuMs[index] as number) / cpuBaseline);
      });
    }
    const rows = commands.map((command, index) => {
      const ratio = ratios[index] as number[];
      const verdict =
        command.target === undefined ? '' : median(ratio) <= command.target ? `≤ ${command.target}×: met` : `≤ ${command.target}×: not met`;
      const cpu = `${Math.round(median(cpuTimes[index] as number[]))} ms, ${median(cpuRatios[index] as number[]).toFixed(2)}×`;
      return `| ${command.label} | ${Math.round(median(times[index] as number[]))} | ${median(ratio).toFixed(2)}× | ${Math.min(...ratio).toFixed(2)}–${Math.max(...ratio).toFixed(2)}× | ${cpu} | ${verdict} |`;
    });
    await time([bin, 'daemon', 'stop'], plain, daemonEnv);
    const distTime = statSync(entry).mtime.toISOString();
    return [
      '## CLI start-up (issue 30)',
      '',
      `Node ${process.version}; the build in ${dist} (dist/cli/main.js of ${distTime}) through bin/agent-spaces.js; ${reps} rounds after a warm-up, interleaved; load average (1 / 5 / 15 min) ${loadBefore} before, ${loadAverage()} after.`,
      '',
      "Rows \"through the daemon\": `agent-spaces daemon start` ran first (its own XDG_RUNTIME_DIR), and each such run waited until the daemon had a warm process ready (a person's pace, not back-to-back runs); their CPU column is the command line's process only (the warm process is the daemon's child, not the command's). Every other command waits for the same (the daemon idle) and is told to ignore the daemon.",
      '',
      '| command | median wall ms | wall ratio to `node -e 0` (median) | wall ratio min–max | CPU (user + sys, median), ratio | target (wall) |',
      '|---|---:|---:|---:|---:|---|',
      ...rows,
      '',
    ].join('\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
