/**
 * `npm run bench -- peers [--reps N]`: Agent Spaces side by side with the code-mode libraries that run
 * here — @utcp/code-mode and @tanstack/ai-code-mode (+ @tanstack/ai-isolate-node), both on isolated-vm —
 * and a raw isolated-vm floor. Every system runs in its own child process (drivers/), gets the same
 * program text per workload, and runs interleaved with the others (A,B,C,D, then the order rotated)
 * over several repetitions. Every result is checked against the expected digest. Agent Spaces runs from
 * its package as tsc builds it (once per bench run, into bench/.peers/agent-spaces/), in plain JavaScript
 * like the peers. Not in the default `npm run bench` (it installs the peers into bench/.peers/ on first
 * use) and never in `npm test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BIG_ROWS, CHUNK_ROWS, bigPayload, digest } from './data.mjs';
import { PACKAGES, agentSpacesOnNode22, buildAgentSpaces, ensureNode24, ensurePeers, ensureQuickJsPeers, prefixOf } from './install.js';
import { median } from '../median.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MCP_SERVER = path.join(here, 'mcp-echo-server.mjs');

type SystemId =
  | 'as'
  | 'asip'
  | 'asth'
  | 'as22'
  | 'asip22'
  | 'asth22'
  | 'as24'
  | 'utcp'
  | 'tanstack'
  | 'floor'
  | 'floor22'
  | 'pfloor'
  | 'tfloor'
  | 'pfloor22'
  | 'tfloor22'
  | 'asq'
  | 'asqip'
  | 'vrun'
  | 'tanstackq'
  | 'qfloor'
  | 'pqfloor';
const SYSTEMS: SystemId[] = [
  'as',
  'asip',
  'asth',
  'as22',
  'asip22',
  'asth22',
  'as24',
  'utcp',
  'tanstack',
  'floor',
  'floor22',
  'pfloor',
  'tfloor',
  'pfloor22',
  'tfloor22',
  'asq',
  'asqip',
  'vrun',
  'tanstackq',
  'qfloor',
  'pqfloor',
];
/** The peers on isolated-vm: the isolated-vm systems' ratios are to the fastest of them. */
const PEERS: SystemId[] = ['utcp', 'tanstack'];
/** The systems on QuickJS, and the peers among them: their ratios are to the fastest QuickJS peer. */
const QUICKJS_SYSTEMS: SystemId[] = ['asq', 'asqip', 'vrun', 'tanstackq', 'qfloor', 'pqfloor'];
const QUICKJS_PEERS: SystemId[] = ['vrun', 'tanstackq'];
/** The raw designs across a hop (drivers/hop-floor.mjs). */
const HOP_SYSTEMS: SystemId[] = ['pfloor', 'tfloor', 'pfloor22', 'tfloor22', 'pqfloor'];
/**
 * The raw designs of a system's own kind (same engine; same hop), which its cells are also compared with:
 * "× floor" for the bare QuickJS floor (in process), "× raw" for the raw design across the same hop (not a
 * floor: a plain design, which Agent Spaces' own hop can beat on small calls).
 */
const FLOOR_OF: Partial<Record<SystemId, SystemId[]>> = {
  asq: ['qfloor', 'pqfloor'],
  asqip: ['qfloor'],
  as: ['pfloor'],
  asth: ['tfloor'],
  as22: ['pfloor22'],
  asth22: ['tfloor22'],
};
const TITLES: Record<SystemId, string> = {
  as: 'Agent Spaces (worker)',
  asip: 'Agent Spaces (in-process)',
  asth: 'Agent Spaces (thread)',
  as22: 'Agent Spaces (worker) on Node 22',
  asip22: 'Agent Spaces (in-process) on Node 22',
  asth22: 'Agent Spaces (thread) on Node 22',
  as24: 'Agent Spaces (worker) on Node 24',
  utcp: 'UTCP',
  tanstack: 'TanStack',
  floor: 'raw isolated-vm floor',
  floor22: 'raw isolated-vm floor on Node 22',
  pfloor: 'raw isolated-vm across processes',
  tfloor: 'raw isolated-vm on a thread',
  pfloor22: 'raw isolated-vm across processes on Node 22',
  tfloor22: 'raw isolated-vm on a thread on Node 22',
  asq: 'Agent Spaces on QuickJS (worker)',
  asqip: 'Agent Spaces on QuickJS (in-process)',
  vrun: "Vercel's run (QuickJS)",
  tanstackq: 'TanStack QuickJS driver',
  qfloor: 'bare QuickJS floor',
  pqfloor: 'bare QuickJS across processes',
};

interface Workload {
  key: string;
  label: string;
  body: string;
  uses: string[];
  expected: unknown;
  /** Runs per repetition (after one warm-up run in the first repetition). */
  runs: number;
  check?: boolean;
  /** Each run gets a text never run before (a comment with a counter): no cache of checked programs can answer it. */
  unique?: boolean;
  /** Divide the run time by this many calls and show µs per call. */
  perCall?: number;
  systems?: SystemId[];
  /** Why a system has no figure for this workload. */
  na?: Partial<Record<SystemId, string>>;
  /** Idle time before each run, not timed (the driver waits it out). */
  gapMs?: number;
  /** A measurement that is no program (the driver's `probe`), run instead of `body`. */
  probe?: { name: string; count: number; payload?: 'big' | 'chunk'; back?: boolean };
}

/** The cells of a row that only `systems` run: 'n/a' for every other system. */
function naExcept(systems: readonly SystemId[]): Partial<Record<SystemId, string>> {
  return Object.fromEntries(SYSTEMS.filter((system) => !systems.includes(system)).map((system) => [system, 'n/a']));
}

const W2_CALLS = 1000;
/** How long one command (a workload's runs for one system) may go unanswered before its driver is killed. */
const REQUEST_TIMEOUT_MS = 10 * 60_000;
const PIPE_ROUND_TRIPS = 2000;
const W4_CALLS = 200;
const W5B_CALLS = 200;
const TRIVIAL = 'const answer = 6 * 7;\nreturn answer;';
const W5B = `let rows = 0;\nfor (let i = 0; i < ${W5B_CALLS}; i++) {\n  const part = await chunk({ i });\n  if (part.i === i) rows += part.items.length;\n}\nreturn rows;`;

const WORKLOADS: Workload[] = [
  { key: 'W1', label: 'W1 cold run of a trivial program, fresh sandbox, no type-check', body: TRIVIAL, uses: [], expected: 42, runs: 10 },
  {
    // The same runs with the system idle 20 ms before each (not timed), as between an agent's turns: what a
    // design that prepares its next sandbox while idle gives back.
    key: 'W1i',
    label: 'W1 … after 20 ms idle before each run (the idle time not counted)',
    body: TRIVIAL,
    uses: [],
    expected: 42,
    runs: 10,
    gapMs: 20,
  },
  {
    key: 'W1c',
    label:
      'W1 … with the default type-check (warm), the same program text each run (checked once, then answered by the cache of checked programs)',
    body: TRIVIAL,
    uses: [],
    expected: 42,
    runs: 5,
    check: true,
    systems: ['as', 'asip', 'asth', 'as22', 'asip22', 'asth22', 'as24', 'asq', 'asqip'],
    na: {
      utcp: 'n/a: no type-check',
      tanstack: 'n/a: no type-check (sucrase strips types)',
      floor: 'n/a',
      floor22: 'n/a',
      vrun: 'n/a: no type-check',
      tanstackq: 'n/a: no type-check',
      qfloor: 'n/a',
    },
  },
  {
    key: 'W1n',
    label: 'W1 … with the default type-check (warm), a program text never checked before in each run',
    body: TRIVIAL,
    uses: [],
    expected: 42,
    runs: 5,
    check: true,
    unique: true,
    systems: ['as', 'asip', 'asth', 'as22', 'asip22', 'asth22', 'as24', 'asq', 'asqip'],
    na: {
      utcp: 'n/a: no type-check',
      tanstack: 'n/a: no type-check (sucrase strips types)',
      floor: 'n/a',
      floor22: 'n/a',
      vrun: 'n/a: no type-check',
      tanstackq: 'n/a: no type-check',
      qfloor: 'n/a',
    },
  },
  {
    key: 'W2',
    label: `W2 ${W2_CALLS.toLocaleString('en')} sequential awaited echo calls, per call`,
    body: `let ok = 0;\nfor (let i = 0; i < ${W2_CALLS}; i++) {\n  const r = await echo({ text: 'm' + i });\n  if (r.text === 'm' + i) ok++;\n}\nreturn ok;`,
    uses: ['echo'],
    expected: W2_CALLS,
    runs: 2,
    perCall: W2_CALLS,
  },
  {
    // Not a system: the floor of W2 for any design that keeps the isolate in another process than the
    // host's tools (Agent Spaces' worker isolation does), measured by the floor driver.
    key: 'W2pipe',
    label: `W2 floor of a separate-process isolate (not a system): 1-byte round trip between two Node 20 processes over a socketpair (stdio 'pipe' on fd 3, child echoes), ${PIPE_ROUND_TRIPS.toLocaleString('en')} sequential, per round trip`,
    body: '',
    uses: [],
    expected: PIPE_ROUND_TRIPS,
    runs: 2,
    perCall: PIPE_ROUND_TRIPS,
    systems: ['floor'],
    probe: { name: 'pipe', count: PIPE_ROUND_TRIPS },
    na: naExcept(['floor']),
  },
  {
    // Not a system: W2's program on raw isolated-vm with the echo bound as an asynchronous Reference (apply
    // with a promise result): the floor of a design whose calls never block the isolate, so that parallel
    // calls overlap (W3). The W2 row's floor binds the synchronous echo with applySync, which blocks it.
    key: 'W2async',
    label: `W2 floor of calls that do not block the isolate (not a system): the same ${W2_CALLS.toLocaleString('en')} sequential echo calls on raw isolated-vm, echo bound as an asynchronous Reference (apply with a promise result, as parallel calls need), per call`,
    body: `let ok = 0;\nfor (let i = 0; i < ${W2_CALLS}; i++) {\n  const r = await echoAsync({ text: 'm' + i });\n  if (r.text === 'm' + i) ok++;\n}\nreturn ok;`,
    uses: ['echoAsync'],
    expected: W2_CALLS,
    runs: 2,
    perCall: W2_CALLS,
    systems: ['floor', 'floor22'],
    na: naExcept(['floor', 'floor22']),
  },
  {
    key: 'W3',
    label: 'W3 100 parallel calls of a 50 ms host tool (Promise.all)',
    body: 'const all = await Promise.all(Array.from({ length: 100 }, () => sleep({ ms: 50 })));\nreturn all.reduce((sum, r) => sum + r.ms, 0);',
    uses: ['sleep'],
    expected: 5000,
    runs: 1,
  },
  {
    key: 'W4',
    label: `W4 ${W4_CALLS} calls to a stdio MCP echo server`,
    body: `let ok = 0;\nfor (let i = 0; i < ${W4_CALLS}; i++) {\n  const r = await mcpEcho({ text: 'hello ' + i });\n  if (JSON.stringify(r).includes('hello ' + i)) ok++;\n}\nreturn ok;`,
    uses: ['mcpEcho'],
    expected: W4_CALLS,
    runs: 2,
  },
  {
    key: 'W4w',
    label: `W4 ${W4_CALLS} calls to an MCP tool doing 2 ms of work`,
    body: `let ok = 0;\nfor (let i = 0; i < ${W4_CALLS}; i++) {\n  const r = await mcpWork({ ms: 2 });\n  if (JSON.stringify(r).includes('worked 2 ms')) ok++;\n}\nreturn ok;`,
    uses: ['mcpWork'],
    expected: W4_CALLS,
    runs: 1,
  },
  {
    key: 'W5a',
    label: 'W5a one call returning a 5.7 MB JSON result, returned out of the program',
    body: 'const data = await big({});\nreturn data;',
    uses: ['big'],
    expected: bigPayload(),
    runs: 2,
  },
  {
    key: 'W5b',
    label: `W5b ${W5B_CALLS} calls each returning 50 KB`,
    body: W5B,
    uses: ['chunk'],
    expected: W5B_CALLS * CHUNK_ROWS,
    runs: 2,
  },
  // Not systems: the JSON work of W5a and W5b alone, by the floor's driver on the Node each runs —
  // Node 20 (isolated-vm 5), Agent Spaces', and the peers' Node 22 (their isolated-vm 6).
  {
    key: 'W5ajson',
    label:
      'W5a JSON work alone (not a system): JSON.stringify the 5.7 MB value on the host, JSON.parse it in a fresh 128 MB isolate, and back (the program returns it): JSON.stringify it in the isolate, JSON.parse it on the host',
    body: '',
    uses: [],
    expected: BIG_ROWS,
    runs: 2,
    systems: ['floor', 'floor22'],
    probe: { name: 'json', count: 1, payload: 'big', back: true },
    na: naExcept(['floor', 'floor22']),
  },
  {
    key: 'W5bjson',
    label: `W5b JSON work alone (not a system): build each 50 KB chunk and JSON.stringify it on the host, JSON.parse it in a fresh 128 MB isolate, ${W5B_CALLS} calls`,
    body: '',
    uses: [],
    expected: W5B_CALLS * CHUNK_ROWS,
    runs: 2,
    systems: ['floor', 'floor22'],
    probe: { name: 'json', count: W5B_CALLS, payload: 'chunk' },
    na: naExcept(['floor', 'floor22']),
  },
];

// ---------------------------------------------------------------------------------------------- drivers

interface Reply {
  type: string;
  id?: number;
  times?: number[];
  results?: { sha: string; bytes: number }[];
  error?: string;
  baseRssMb?: number;
  importRssMb?: number;
  info?: string;
}

class Driver {
  readonly child: ChildProcess;
  readonly ready: Promise<Reply>;
  private readonly waiting = new Map<number, (reply: Reply) => void>();
  private nextId = 1;
  private stderr: string[] = [];
  private exited: Promise<void>;

  constructor(
    readonly system: SystemId,
    command: string,
    args: string[],
  ) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], cwd: path.join(here, '..', '..') });
    this.child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      this.stderr.push(text);
      if (this.stderr.length > 40) this.stderr.shift();
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    let readyResolve: (reply: Reply) => void = () => {};
    let readyReject: (error: Error) => void = () => {};
    this.ready = new Promise((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    });
    const lines = createInterface({ input: this.child.stdout! });
    lines.on('line', (line) => {
      let reply: Reply;
      try {
        reply = JSON.parse(line) as Reply;
      } catch {
        return; // not ours
      }
      if (reply.type === 'ready') readyResolve(reply);
      else if (reply.id !== undefined) this.waiting.get(reply.id)?.(reply);
    });
    this.child.once('exit', (code, signal) => {
      const error = new Error(`${TITLES[system]} driver exited (${String(code ?? signal)}): ${this.stderr.join('').slice(-3000)}`);
      readyReject(error);
      for (const resolve of this.waiting.values()) resolve({ type: 'result', error: error.message });
      this.waiting.clear();
    });
  }

  /**
   * Sends one command. A driver that answers nothing for REQUEST_TIMEOUT_MS (a system that hangs: the
   * TanStack QuickJS driver spun at full CPU on W3 here) is killed, and the command fails with that.
   */
  request(command: Record<string, unknown>): Promise<Reply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        this.child.kill('SIGKILL');
        resolve({ type: 'result', error: `${TITLES[this.system]} answered nothing for ${REQUEST_TIMEOUT_MS / 1000} s: killed` });
      }, REQUEST_TIMEOUT_MS);
      this.waiting.set(id, (reply) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(reply);
      });
      this.child.stdin!.write(JSON.stringify({ ...command, id }) + '\n');
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin!.write(JSON.stringify({ type: 'exit' }) + '\n');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** `asProject`: the user project with the built Agent Spaces package (install.ts, buildAgentSpaces). */
function startDriver(
  system: SystemId,
  nodes: { node22: string; node24?: string },
  asProjects: { as: string; as22?: string; as24?: string },
  options: { mcp: boolean; build: boolean },
): Driver {
  const mcp = options.mcp ? { mcpServer: MCP_SERVER, mcpNode: process.execPath } : {};
  switch (system) {
    case 'as':
    case 'asip':
    case 'asth':
    case 'asq':
    case 'asqip':
    case 'as22':
    case 'asip22':
    case 'asth22':
    case 'as24': {
      // The same build and driver; as22/as24 run it (and so its sandbox workers) on Node 22/24 with the
      // isolated-vm that line installs; asq on this Node with the QuickJS engine.
      const onNode22 = system === 'as22' || system === 'asip22' || system === 'asth22';
      const node = onNode22 ? nodes.node22 : system === 'as24' ? nodes.node24 : process.execPath;
      const project = onNode22 ? asProjects.as22 : system === 'as24' ? asProjects.as24 : asProjects.as;
      if (project === undefined || node === undefined) throw new Error(`bench peers: no Agent Spaces project or Node for ${system}`);
      // asip/asqip: the same with in-process isolation (the isolate in the host process, no worker).
      const engine = system === 'asq' || system === 'asqip' ? 'quickjs' : 'isolated-vm';
      // asth: sandbox workers on threads of the driver's process (no process hop).
      const isolation =
        system === 'asip' || system === 'asip22' || system === 'asqip'
          ? 'in-process'
          : system === 'asth' || system === 'asth22'
            ? 'thread'
            : 'worker';
      return new Driver(system, node, [
        '--no-node-snapshot',
        ...(process.env.BENCH_PEERS_AS_NODE_OPTIONS ?? '').split(' ').filter((option) => option !== ''),
        path.join(here, 'drivers', 'agent-spaces.mjs'),
        JSON.stringify({ ...mcp, project, build: options.build, engine, isolation }),
      ]);
    }
    case 'vrun':
      return new Driver(system, nodes.node22, [
        path.join(here, 'drivers', 'vercel-run.mjs'),
        JSON.stringify({ ...mcp, prefix: prefixOf('vrun') }),
      ]);
    case 'tanstackq':
      return new Driver(system, nodes.node22, [
        path.join(here, 'drivers', 'tanstack-quickjs.mjs'),
        JSON.stringify({ ...mcp, prefix: prefixOf('tanstackq') }),
      ]);
    case 'qfloor':
      return new Driver(system, process.execPath, [path.join(here, 'drivers', 'quickjs-floor.mjs'), JSON.stringify(mcp)]);
    case 'utcp':
    case 'tanstack':
      return new Driver(system, nodes.node22, [
        '--no-node-snapshot',
        path.join(here, 'drivers', `${system}.mjs`),
        JSON.stringify({ ...mcp, prefix: prefixOf(system) }),
      ]);
    case 'floor':
      return new Driver(system, process.execPath, ['--no-node-snapshot', path.join(here, 'drivers', 'floor.mjs'), JSON.stringify(mcp)]);
    case 'pqfloor':
      // Bare QuickJS in a child process, its calls across to the host (drivers/hop-floor.mjs).
      return new Driver(system, process.execPath, [
        path.join(here, 'drivers', 'hop-floor.mjs'),
        JSON.stringify({ ...mcp, hop: 'process', engine: 'quickjs' }),
      ]);
    case 'pfloor':
    case 'tfloor':
    case 'pfloor22':
    case 'tfloor22':
      // Raw isolated-vm with its isolate across a process or a thread hop from the tools (drivers/hop-floor.mjs):
      // the plain design of Agent Spaces' worker and thread tiers; on Node 22 with the peers' isolated-vm 6.
      return new Driver(system, system.endsWith('22') ? nodes.node22 : process.execPath, [
        '--no-node-snapshot',
        path.join(here, 'drivers', 'hop-floor.mjs'),
        JSON.stringify({
          ...mcp,
          hop: system.startsWith('p') ? 'process' : 'thread',
          ...(system.endsWith('22') ? { ivmPrefix: prefixOf('utcp') } : {}),
        }),
      ]);
    case 'floor22':
      // The same driver on the peers' Node 22, with their isolated-vm 6 (UTCP's copy): the floor of the peers' runtime.
      return new Driver(system, nodes.node22, [
        '--no-node-snapshot',
        path.join(here, 'drivers', 'floor.mjs'),
        JSON.stringify({ ...mcp, ivmPrefix: prefixOf('utcp') }),
      ]);
  }
}

// ---------------------------------------------------------------------------------------------- memory

const PAGE = 4096;

function childrenOf(pid: number): number[] {
  const found: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text) found.push(...text.split(/\s+/).map(Number));
    }
  } catch {
    // gone
  }
  return found;
}

/** Sum of the RSS of a process and all its descendants, in MB. */
function treeRssMb(root: number): number {
  let pages = 0;
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    try {
      pages += Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    } catch {
      continue;
    }
    queue.push(...childrenOf(pid));
  }
  return (pages * PAGE) / 1024 / 1024;
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system) of a process and all its descendants, in ms (clock ticks of /proc/<pid>/stat). */
function treeCpuMs(root: number): number {
  let ticks = 0;
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    try {
      // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      continue;
    }
    queue.push(...childrenOf(pid));
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

function samplePeak(pid: number, everyMs = 20): { stop: () => number } {
  let peak = treeRssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, treeRssMb(pid))), everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, treeRssMb(pid));
    },
  };
}

// ---------------------------------------------------------------------------------------------- run

const rotate = <T>(items: T[], by: number): T[] => items.map((_, index) => items[(index + by) % items.length]!);

function checkReply(system: SystemId, what: string, reply: Reply, expected: { sha: string; bytes: number }): number[] {
  if (reply.error) throw new Error(`${TITLES[system]}, ${what}: ${reply.error}`);
  for (const result of reply.results ?? []) {
    if (result.sha !== expected.sha)
      throw new Error(
        `${TITLES[system]}, ${what}: wrong result (${result.bytes} bytes, digest ${result.sha}; expected ${expected.bytes} bytes, ${expected.sha})`,
      );
  }
  return reply.times ?? [];
}

function repsFromArgv(): number {
  const index = process.argv.indexOf('--reps');
  const value = index >= 0 ? Number(process.argv[index + 1]) : 7;
  if (!Number.isInteger(value) || value < 1) throw new Error('bench peers: --reps wants a positive integer');
  return value;
}

/** `--<name> a,b`: the listed values (checked against `known`), or `undefined` when the option is absent. */
function listFromArgv(name: string, known: readonly string[]): string[] | undefined {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return undefined;
  const values = (process.argv[index + 1] ?? '').split(',').filter((value) => value !== '');
  const unknown = values.filter((value) => !known.includes(value));
  if (values.length === 0 || unknown.length > 0)
    throw new Error(
      `bench peers: --${name} takes a comma-separated list of ${known.join(', ')} (got ${process.argv[index + 1] ?? 'nothing'})`,
    );
  return values;
}

/** What `npm run bench -- peers --help` prints. */
export const PEERS_USAGE = `npm run bench -- peers [options]
  --reps N           interleaved repetitions (default 7)
  --only W1,W4,W6    only these workloads (${['W1', 'W1i', 'W1c', 'W1n', 'W2', 'W2pipe', 'W2async', 'W3', 'W4', 'W4w', 'W5a', 'W5b', 'W5ajson', 'W5bjson', 'W6'].join(', ')}); the report then has only their rows
  --systems as,floor only these systems (as, asip = Agent Spaces with in-process isolation, asth = with thread isolation, as22 / as24 = Agent Spaces on Node 22 / 24, asip22 / asth22 = in-process / thread on Node 22, utcp, tanstack,
                     floor, floor22 = the floor on Node 22, pfloor / tfloor = raw isolated-vm with its isolate in another process / on a thread (pfloor22 / tfloor22 on Node 22), asq / asqip = Agent Spaces on QuickJS (worker / in-process), vrun = Vercel's run, tanstackq = TanStack's QuickJS driver, qfloor = bare QuickJS, pqfloor = bare QuickJS in another process); ratios need at least one peer
  --no-build         reuse the Agent Spaces build already in bench/.peers/agent-spaces (e.g. one made by hand)
To profile Agent Spaces' host: BENCH_PEERS_AS_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" (passed to its driver's node).`;

export async function run(): Promise<string> {
  const reps = repsFromArgv();
  const only = listFromArgv('only', [...WORKLOADS.map((workload) => workload.key), 'W6']);
  const systems = (listFromArgv('systems', SYSTEMS) as SystemId[] | undefined) ?? SYSTEMS;
  const workloads = WORKLOADS.filter((workload) => only === undefined || only.includes(workload.key));
  const withW6 = only === undefined || only.includes('W6');
  const loadStart = os.loadavg();
  const started = new Date();
  const node22 = ensurePeers();
  if (systems.some((system) => QUICKJS_PEERS.includes(system))) ensureQuickJsPeers(node22);
  const nodes = { node22, ...(systems.includes('as24') ? { node24: ensureNode24() } : {}) };
  const asProject = process.argv.includes('--no-build') ? existingAgentSpacesBuild() : buildAgentSpaces();
  const asProjects = {
    as: asProject,
    ...(systems.some((system) => system === 'as22' || system === 'asip22' || system === 'asth22')
      ? { as22: agentSpacesOnNode22(asProject) }
      : {}),
    ...(systems.includes('as24') ? { as24: agentSpacesOnNode22(asProject, 24) } : {}),
  };
  const log = (line: string) => console.error(`bench peers: ${line}`);

  // Long-lived drivers for W1–W5 (the Agent Spaces one compiles the capabilities first).
  const drivers = new Map<SystemId, Driver>();
  const samples = new Map<string, number[]>(); // `${workload}:${system}` → ms
  const add = (key: string, values: number[]) => samples.set(key, [...(samples.get(key) ?? []), ...values]);
  const infos = new Map<SystemId, Reply>();
  // A system that fails a workload (a crash, a wrong result) gets the failure in its cell, not a figure,
  // and the bench goes on: the QuickJS peers are known to crash on some workloads. A driver that died is
  // started again for the next workload.
  const failures = new Map<string, string>();
  const fail = (key: string, system: SystemId, error: unknown) => {
    const message = (error instanceof Error ? error.message : String(error)).split('\n').find((line) => line.trim() !== '') ?? 'failed';
    failures.set(`${key}:${system}`, message.replace(/\|/g, '/').slice(0, 160));
    log(`${TITLES[system]}, ${key}: FAILED: ${message}`);
  };
  const alive = async (system: SystemId): Promise<Driver> => {
    const driver = drivers.get(system)!;
    if (driver.child.exitCode === null && driver.child.signalCode === null) return driver;
    const fresh = startDriver(system, nodes, asProjects, { mcp: true, build: false });
    drivers.set(system, fresh);
    await fresh.ready;
    return fresh;
  };
  try {
    for (const system of workloads.length > 0 ? systems : [])
      drivers.set(system, startDriver(system, nodes, asProjects, { mcp: true, build: true }));
    for (const [system, driver] of drivers) infos.set(system, await driver.ready);
    log(`drivers ready: ${[...infos.values()].map((info) => info.info).join('; ')}`);

    for (let rep = 0; rep < reps; rep++) {
      for (const [index, workload] of workloads.entries()) {
        const expected = digest(workload.expected);
        for (const system of rotate(SYSTEMS, rep + index)) {
          if (!drivers.has(system) || (workload.systems && !workload.systems.includes(system))) continue;
          if (failures.has(`${workload.key}:${system}`)) continue;
          const reply = await (
            await alive(system)
          ).request({
            body: workload.body,
            uses: workload.uses,
            runs: workload.runs,
            warmup: rep === 0 ? (workload.key === 'W1' ? 3 : 1) : 0,
            check: workload.check ?? false,
            unique: workload.unique ?? false,
            ...(workload.probe ? { probe: workload.probe } : {}),
            ...(workload.gapMs ? { gapMs: workload.gapMs } : {}),
          });
          try {
            add(`${workload.key}:${system}`, checkReply(system, workload.key, reply, expected));
          } catch (error) {
            fail(workload.key, system, error);
          }
        }
      }
      if (workloads.length > 0) log(`repetition ${rep + 1}/${reps} of ${workloads.map((workload) => workload.key).join(', ')} done`);
    }
  } finally {
    await Promise.all([...drivers.values()].map((driver) => driver.close()));
  }

  // W6: a fresh driver process per measurement (no MCP, no build), its whole process tree sampled.
  const w6Expected = digest(W5B_CALLS * CHUNK_ROWS);
  for (let rep = 0; rep < (withW6 ? reps : 0); rep++) {
    for (const [index, system] of rotate(SYSTEMS, rep)
      .filter((system) => systems.includes(system))
      .entries()) {
      for (const concurrency of index % 2 === 0 ? [1, 16] : [16, 1]) {
        if (failures.has(`W6-${concurrency}:${system}`)) continue;
        const driver = startDriver(system, nodes, asProjects, { mcp: false, build: false });
        const sampler = samplePeak(driver.child.pid!);
        try {
          const ready = await driver.ready;
          add(`import-base:${system}`, [ready.baseRssMb ?? Number.NaN]);
          add(`import:${system}`, [ready.importRssMb ?? Number.NaN]);
          const cpuBefore = treeCpuMs(driver.child.pid!);
          const reply = await driver.request({ body: W5B, uses: ['chunk'], runs: 1, warmup: 1, concurrency });
          add(`W6-cpu-${concurrency}:${system}`, [treeCpuMs(driver.child.pid!) - cpuBefore]);
          add(`W6-wall-${concurrency}:${system}`, checkReply(system, `W6 × ${concurrency}`, reply, w6Expected));
          add(`W6-rss-${concurrency}:${system}`, [sampler.stop()]);
        } catch (error) {
          fail(`W6-${concurrency}`, system, error);
        } finally {
          sampler.stop();
          await driver.close();
        }
      }
    }
    log(`repetition ${rep + 1}/${reps} of W6 done`);
  }
  const loadEnd = os.loadavg();
  return report({ reps, started, loadStart, loadEnd, samples, infos, workloads, withW6, failures });
}

/** `--no-build`: the Agent Spaces package already in the cache. */
function existingAgentSpacesBuild(): string {
  const project = path.join(here, '..', '.peers', 'agent-spaces');
  if (!existsSync(path.join(project, 'node_modules', 'agent-spaces', 'dist', 'index.js')))
    throw new Error(`bench peers: --no-build, but ${project} holds no build; run once without it`);
  console.error('bench peers: --no-build: measuring the Agent Spaces build already in bench/.peers/agent-spaces');
  return project;
}

// ---------------------------------------------------------------------------------------------- report

function report(input: {
  reps: number;
  started: Date;
  loadStart: number[];
  loadEnd: number[];
  samples: Map<string, number[]>;
  infos: Map<SystemId, Reply>;
  workloads: Workload[];
  withW6: boolean;
  failures: Map<string, string>;
}): string {
  const m = (key: string, system: SystemId) => median(input.samples.get(`${key}:${system}`) ?? []);
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
  const fmt = (value: number, unit: string) => {
    if (!Number.isFinite(value)) return '—';
    if (unit === 'µs') return `${(value * 1000).toFixed(0)} µs`;
    if (unit === 'MB') return `${value.toFixed(0)} MB`;
    if (unit === 's') return `${(value / 1000).toFixed(2)} s`;
    return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(1)} ms`;
  };
  const rows: string[] = [];
  /** The fastest peer of a system's kind (isolated-vm peers, or QuickJS peers) for one figure. */
  const fastestFor = (system: SystemId, values: Partial<Record<SystemId, number>>): number => {
    const peers = QUICKJS_SYSTEMS.includes(system) ? QUICKJS_PEERS : PEERS;
    const peerValues = peers.map((peer) => values[peer]).filter((value): value is number => value !== undefined && Number.isFinite(value));
    return peerValues.length > 0 ? Math.min(...peerValues) : Number.NaN;
  };
  /** The fastest of `peers` on `key` (the peers not run have no figure). */
  const fastestOf = (peers: readonly SystemId[], key: string): number => {
    const peerValues = peers.map((peer) => m(key, peer)).filter((value) => Number.isFinite(value));
    return peerValues.length > 0 ? Math.min(...peerValues) : Number.NaN;
  };
  const row = (
    label: string,
    values: Partial<Record<SystemId, number>>,
    unit: string,
    notes: Partial<Record<SystemId, string>> = {},
    key = '',
  ) => {
    const cells = SYSTEMS.map((system) => {
      const failure = input.failures.get(`${key}:${system}`);
      if (failure !== undefined) return `FAILED: ${failure}`;
      const value = values[system];
      if (value === undefined || !Number.isFinite(value)) return notes[system] ?? 'n/a';
      const fastest = fastestFor(system, values);
      let ratio = Number.isFinite(fastest) ? ` (${(value / fastest).toFixed(2)}×)` : '';
      // Agent Spaces against the raw design of its own kind as well: on QuickJS the bare QuickJS floor (the
      // issue's "within 1.5×"), the worker and thread tiers raw isolated-vm across the same hop.
      for (const own of FLOOR_OF[system] ?? []) {
        const floor = values[own];
        if (floor !== undefined && Number.isFinite(floor))
          ratio += ` (${(value / floor).toFixed(2)}× ${own === 'qfloor' ? 'floor' : 'raw'})`;
      }
      return `${fmt(value, unit)}${ratio}${notes[system] ? ` ${notes[system]}` : ''}`;
    });
    rows.push(`| ${label} | ${cells.join(' | ')} |`);
  };
  /** A row whose cells say their own thing (a system's figure, or why it has none). */
  const rawRow = (label: string, cells: Partial<Record<SystemId, string>>) =>
    rows.push(`| ${label} | ${SYSTEMS.map((system) => cells[system] ?? 'n/a').join(' | ')} |`);
  const all = (key: string, scale = 1) =>
    Object.fromEntries(SYSTEMS.map((system) => [system, m(key, system) / scale])) as Record<SystemId, number>;

  for (const workload of input.workloads) {
    const values = all(workload.key, workload.perCall ?? 1);
    if (workload.systems)
      for (const system of SYSTEMS) if (!workload.systems.includes(system)) delete (values as Partial<Record<SystemId, number>>)[system];
    const notes: Partial<Record<SystemId, string>> = { ...workload.na };
    if (workload.key === 'W4' || workload.key === 'W4w') notes.floor = notes.floor22 = '(direct SDK `Client.callTool`, no sandbox)';
    if (workload.key === 'W5ajson' || workload.key === 'W5bjson') {
      // The same code on two Nodes: the second figure against the first says what Node 20's V8 costs.
      const onNode20 = !Number.isFinite(values.floor)
        ? 'n/a'
        : Number.isFinite(values.floor22)
          ? `${fmt(values.floor, 'ms')} (${(values.floor / values.floor22).toFixed(2)}× the same work on Node 22)`
          : fmt(values.floor, 'ms');
      rawRow(workload.label, { ...notes, floor: onNode20, floor22: Number.isFinite(values.floor22) ? fmt(values.floor22, 'ms') : 'n/a' });
      continue;
    }
    if (workload.key === 'W2async') {
      const fastest = fastestOf(PEERS, 'W2') / W2_CALLS;
      const cell = (system: 'floor' | 'floor22'): string =>
        Number.isFinite(values[system])
          ? `${fmt(values[system], 'µs')} (${(values[system] / fastest).toFixed(2)}× the fastest peer's W2 per call)`
          : 'n/a';
      rawRow(workload.label, { ...notes, floor: cell('floor'), floor22: cell('floor22') });
      continue;
    }
    if (workload.key === 'W2pipe') {
      // Against the fastest peer's W2 per call: what is left for everything but the process hop.
      const fastest = fastestOf(PEERS, 'W2') / W2_CALLS;
      rawRow(workload.label, {
        ...notes,
        ...(Number.isFinite(values.floor)
          ? { floor: `${fmt(values.floor, 'µs')} (${(values.floor / fastest).toFixed(2)}× the fastest peer's W2 per call)` }
          : {}),
      });
      continue;
    }
    if (workload.key === 'W1c' || workload.key === 'W1n') {
      // Against the fastest peer's unchecked run, as the goal puts it.
      const checked = (system: SystemId): string => {
        const peers = QUICKJS_SYSTEMS.includes(system) ? QUICKJS_PEERS : PEERS;
        const fastest = fastestOf(peers, 'W1');
        return Number.isFinite(values[system])
          ? `${fmt(values[system], 'ms')} (${(values[system] / fastest).toFixed(2)}× the fastest peer's unchecked W1)`
          : '—';
      };
      rawRow(workload.label, {
        ...notes,
        as: checked('as'),
        asip: checked('asip'),
        asth: checked('asth'),
        as22: checked('as22'),
        asip22: checked('asip22'),
        asth22: checked('asth22'),
        as24: checked('as24'),
        asq: checked('asq'),
        asqip: checked('asqip'),
      });
      continue;
    }
    row(workload.label, values, workload.perCall ? 'µs' : 'ms', notes, workload.key);
  }
  if (input.withW6) {
    row('W6 peak RSS, host + sandbox processes, 1 concurrent run (W5b program)', all('W6-rss-1'), 'MB', {}, 'W6-1');
    row('W6 peak RSS, host + sandbox processes, 16 concurrent runs', all('W6-rss-16'), 'MB', {}, 'W6-16');
    row('W6 wall time of 16 concurrent runs', all('W6-wall-16'), 's', {}, 'W6-16');
    row('W6 wall time of 1 run (same fresh process)', all('W6-wall-1'), 'ms', {}, 'W6-1');
    // With other load on the machine, a wall time is also a share of the CPUs: this says how much work it was.
    row('W6 CPU time (user + system) of the whole process tree for the 16 runs and their warm-up run', all('W6-cpu-16'), 's', {}, 'W6-16');
    // The raw designs across a hop load their engine on the far side: their host imports nothing to compare.
    const imported: Partial<Record<SystemId, number>> = all('import');
    for (const system of HOP_SYSTEMS) delete imported[system];
    row('Host RSS right after importing the package (process at start)', imported, 'MB', {
      ...Object.fromEntries(
        SYSTEMS.filter((system) => Number.isFinite(m('import-base', system))).map((system) => [
          system,
          `(from ${fmt(m('import-base', system), 'MB')})`,
        ]),
      ),
      ...Object.fromEntries(HOP_SYSTEMS.map((system) => [system, 'n/a: the engine loads on the far side'])),
    });
  }

  const versions = Object.entries(PACKAGES)
    .map(([name, list]) => `${name}: ${list.join(', ')}`)
    .join('; ');
  return [
    '## Peers: Agent Spaces vs code-mode libraries (issue 10)',
    '',
    `${input.started.toISOString()}, ${os.availableParallelism()} CPUs, load average (1/5/15 min) ${load(input.loadStart)} at start, ${load(input.loadEnd)} at end. ` +
      `Medians over ${input.reps} interleaved repetitions (order rotated each repetition); every run's result checked. ` +
      `Ratios are to the fastest peer of the row of the system's engine: isolated-vm systems to UTCP and TanStack, QuickJS systems to Vercel's run and TanStack's QuickJS driver (Agent Spaces on QuickJS also to the bare QuickJS floor, "× floor"). "× raw": Agent Spaces' worker, thread and QuickJS worker against the raw design across the same hop (raw isolated-vm or bare QuickJS in another process or on a thread, no framework).`,
    '',
    `| workload | ${SYSTEMS.map((system) => TITLES[system]).join(' | ')} |`,
    `|---|${SYSTEMS.map(() => '---').join('|')}|`,
    ...rows,
    '',
    `Systems: ${SYSTEMS.map((system) => `${TITLES[system]}: ${input.infos.get(system)?.info ?? '?'}`).join('; ')}. Peers installed: ${versions}.`,
    '',
  ].join('\n');
}
