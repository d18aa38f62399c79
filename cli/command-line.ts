/**
 * The command line: every command, the options each takes and its help, in one table, so the help
 * cannot list an option the parser refuses or leave out one it takes. Node built-ins only: the bin
 * answers --help and --version from this file and cli/main.ts alone.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** The value's placeholder in the help (`<port>`); string options only. */
  value?: string;
  help: string;
}

/** Every option of every command. */
export const OPTIONS = {
  config: {
    type: 'string',
    value: '<file>',
    help: 'config file, relative to --cwd (default: agent-spaces.config.{ts,mts,js,mjs,json} in --cwd)',
  },
  cwd: {
    type: 'string',
    value: '<dir>',
    help: "the space's folder, or the folder agent paths are relative to (default: the current directory)",
  },
  json: { type: 'boolean', help: 'machine-readable output on stdout' },
  force: { type: 'boolean', help: 're-emit every module even when unchanged' },
  args: { type: 'string', value: '<json>', help: "the call's arguments, a JSON object (default {})" },
  'no-check': { type: 'boolean', help: 'skip the type-check against the built declarations' },
  approve: {
    type: 'string',
    value: '<all|none>',
    help: 'answer approval requests without asking (default: ask on a terminal, deny otherwise)',
  },
  studio: {
    type: 'string',
    value: '<address>',
    help: 'ask for approvals in the Approvals inbox of a running studio: the address "agent-spaces studio"\nprinted, token included (default: $AGENT_SPACES_STUDIO; for run and task, --approve wins over it)',
  },
  isolation: { type: 'string', value: '<mode>', help: 'worker (default: pooled sandbox processes) or in-process (trusted code only)' },
  engine: {
    type: 'string',
    value: '<name>',
    help: 'sandbox engine: auto (default: isolated-vm when it loads, else QuickJS), isolated-vm or quickjs',
  },
  mode: {
    type: 'string',
    value: '<code|invoke|both>',
    help: 'serve: code (default) search_tools, get_types, execute_code; invoke search_tools and call_tool\n(no code: any MCP client); both all four',
  },
  timeout: { type: 'string', value: '<ms>', help: 'wall-clock limit of the run' },
  http: { type: 'string', value: '<port>', help: 'Streamable HTTP on this port (0 = any free port) instead of stdio, path /mcp' },
  a2a: { type: 'string', value: '<port>', help: 'serve the agent directories as A2A servers on this port' },
  host: { type: 'string', value: '<addr>', help: 'address to bind (default 127.0.0.1)' },
  token: {
    type: 'string',
    value: '<t>',
    help: 'require "Authorization: Bearer <t>" over HTTP and A2A; needed for an address that is not loopback\n(default: $AGENT_SPACES_SERVE_TOKEN)',
  },
  model: { type: 'string', value: '<id>', help: 'model id (default: config model.model, $AGENT_SPACES_MODEL, gpt-4.1-mini)' },
  'base-url': {
    type: 'string',
    value: '<url>',
    help: 'OpenAI-compatible endpoint (default: config, $AGENT_SPACES_BASE_URL, OpenAI);\na key ($OPENAI_API_KEY or model.apiKey) is required for OpenAI, optional elsewhere',
  },
  context: { type: 'string', value: '<text>', help: 'extra context for the model' },
  trace: { type: 'string', value: '<file>', help: 'write the trace (events and model replies, JSON lines) to this file' },
  replay: { type: 'string', value: '<file>', help: "replay a trace's model replies instead of asking a model" },
  'budget-steps': { type: 'string', value: '<n>', help: 'most model steps (default 10)' },
  'budget-tool-calls': { type: 'string', value: '<n>', help: 'most tool calls (default 30)' },
  'budget-code-runs': { type: 'string', value: '<n>', help: 'most code runs (default 3)' },
  'budget-cost': { type: 'string', value: '<usd>', help: 'most model cost in US dollars (default 0.5)' },
  port: { type: 'string', value: '<p>', help: 'port on 127.0.0.1 (default: any free port)' },
  open: { type: 'boolean', help: 'open the address in the desktop browser' },
  'eval-dir': {
    type: 'string',
    value: '<dir>',
    help: 'the folder holding the eval run folders the Eval pane lists, one per "agent-spaces eval --out"\n(default: .agent-spaces/eval in --cwd, where eval writes them)',
  },
  store: {
    type: 'string',
    value: '<url>',
    help: 'durable runs: the PostgreSQL store (postgres://…) shared by workers and submitters\n(default: config store, $AGENT_SPACES_STORE; none: everything in this process)',
  },
  concurrency: { type: 'string', value: '<n>', help: 'runs this worker executes at once (default 4)' },
  id: {
    type: 'string',
    value: '<id>',
    help: "this worker's id in the store, unique among live workers (default: host, pid and a random part)",
  },
  'older-than': {
    type: 'string',
    value: '<duration>',
    help: 'prune the runs that ended longer ago than this: 30m, 12h, 7d (default 7d; 0s: every finished run)',
  },
  all: { type: 'boolean', help: 'decided approvals too, not only pending ones' },
  reason: { type: 'string', value: '<text>', help: 'why, recorded with the decision' },
  verbose: { type: 'boolean', short: 'v', help: 'print every capability call and approval on stderr' },
  arms: { type: 'string', value: '<list>', help: 'eval: the arms to compare, from direct,code,planner (default all three)' },
  tasks: { type: 'string', value: '<ids>', help: 'eval: which tasks: ids and ranges (0,3,10-14), split:<name> or first:<n> (default all)' },
  repeat: { type: 'string', value: '<n>', help: 'eval: run every task n times (default 1)' },
  out: { type: 'string', value: '<dir>', help: 'eval: the run folder (default .agent-spaces/eval/<suite>-<time>)' },
  resume: { type: 'boolean', help: 'eval: go on with the run in --out, skipping its finished tasks' },
  help: { type: 'boolean', short: 'h', help: "this help (after a command: that command's help)" },
  version: { type: 'boolean', help: 'the version of agent-spaces' },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

interface CommandSpec {
  /** How it is called, one line per form. */
  synopsis: string[];
  description: string;
  /** The options it takes besides --help and --version. */
  options: OptionName[];
}

const TASK_OPTIONS: OptionName[] = [
  'config',
  'cwd',
  'json',
  'approve',
  'studio',
  'model',
  'base-url',
  'context',
  'trace',
  'replay',
  'budget-steps',
  'budget-tool-calls',
  'budget-code-runs',
  'budget-cost',
  'store',
];

/** Every command; a group's subcommands are `<group> <sub>`. */
export const COMMANDS = {
  'capabilities build': {
    synopsis: ['agent-spaces capabilities build [--force] [--json]'],
    description:
      'compile every capability source into the build output: progress per source on stderr, a summary (or --json) on stdout;\na source that fails keeps its last good module (said, and warned of at every run); writes <outDir>/tsconfig.json\nfor editors and tsc once',
    options: ['config', 'cwd', 'json', 'force'],
  },
  'capabilities sample': {
    synopsis: ["agent-spaces capabilities sample <module.function> [--args '<json>'] [--approve <all|none>]"],
    description:
      'call a read-only MCP tool without an output schema through the space (approvals apply) and learn its\nresult type from the JSON text it returns (kept in <outDir>/inferred/); the next "capabilities build"\ndeclares it. Refuses a tool not known to be read-only: set mcpServers.<server>.sideEffects, or the\ntool\'s readOnlyHint annotation says so',
    options: ['config', 'cwd', 'json', 'args', 'approve'],
  },
  'capabilities list': {
    synopsis: ['agent-spaces capabilities list [--json]'],
    description: 'list modules and functions with their signatures (--json: the catalog)',
    options: ['config', 'cwd', 'json'],
  },
  run: {
    synopsis: ['agent-spaces run <file.ts | -> [options]'],
    description:
      'run a program in the sandbox (- reads stdin), building first when the build is missing or out of date;\nits log lines are printed as it writes them',
    options: ['config', 'cwd', 'json', 'no-check', 'approve', 'studio', 'isolation', 'engine', 'timeout', 'verbose', 'store'],
  },
  doctor: {
    synopsis: ['agent-spaces doctor [--json]'],
    description:
      'check the installation: Node, each isolated-vm copy and why it does not load, QuickJS, which engine\n`auto` picks, and what to do',
    options: ['json'],
  },
  worker: {
    synopsis: ['agent-spaces worker [--store <url>] [--concurrency <n>] [--id <id>]'],
    description:
      'execute durable runs queued in the store, with this space (any number of workers, on any machine\nreaching the database); takes over the runs of workers that died. Stops on Ctrl-C (its runs go to\nother workers)',
    options: ['config', 'cwd', 'store', 'concurrency', 'id', 'verbose'],
  },
  'store prune': {
    synopsis: ['agent-spaces store prune [--older-than <duration>] [--store <url>]'],
    description:
      "delete the rows of durable runs that ended longer ago than --older-than: their events, call journal,\ndecided approvals, model replies and DBOS's workflow rows (never an unfinished run or a pending approval;\nworkers do it too with durable.retention in the config)",
    options: ['config', 'cwd', 'store', 'older-than', 'json'],
  },
  'approvals list': {
    synopsis: ['agent-spaces approvals list [--all] [--json]'],
    description: "the durable runs' approvals waiting for a decision (--all: decided ones too)",
    options: ['config', 'cwd', 'store', 'json', 'all'],
  },
  'approvals approve': {
    synopsis: ['agent-spaces approvals approve <id> [--reason <text>]'],
    description: 'approve a waiting call of a durable run (the id, or its start, as listed); the run goes on',
    options: ['config', 'cwd', 'store', 'json', 'reason'],
  },
  'approvals deny': {
    synopsis: ['agent-spaces approvals deny <id> [--reason <text>]'],
    description: 'deny a waiting call of a durable run: the call fails with APPROVAL_DENIED',
    options: ['config', 'cwd', 'store', 'json', 'reason'],
  },
  trace: {
    synopsis: ['agent-spaces trace <run-or-task-id> [--store <url>]'],
    description:
      "the trace of a run or task a worker executed, from the store, as JSON lines: a task's are a trace\nfile's (save them and pass the file to task --replay), a run's are its events (logs, approvals, end)",
    options: ['config', 'cwd', 'store'],
  },
  serve: {
    synopsis: [
      'agent-spaces serve [--http <port>] [--host <addr>] [--token <t>] [--studio <address>] [--store <url>] [--mode <code|invoke|both>]',
    ],
    description:
      'serve the space as an MCP server (stdio by default): tools search_tools, get_types, execute_code,\nor with --mode invoke search_tools and call_tool (no code)\n(with a store, execute_code runs go to its workers and sessions are kept in it, so replicas share them)',
    options: ['config', 'cwd', 'http', 'host', 'token', 'studio', 'isolation', 'engine', 'store', 'mode'],
  },
  task: {
    synopsis: ['agent-spaces task "<task>" [options]', 'agent-spaces task --replay <trace.jsonl>'],
    description:
      "give a task in words to the model (planner): it searches, calls tools and runs code within a budget;\nprogress on stderr, the summary on stdout. --replay re-runs a recorded task's model replies against the tools",
    options: TASK_OPTIONS,
  },
  'agent serve': {
    synopsis: ['agent-spaces agent serve <dir> [--http <port>]', 'agent-spaces agent serve <dir...> --a2a <port>'],
    description:
      'serve a Tools-mode agent directory as an MCP server (stdio by default), or agent directories as\nA2A servers (cards at /agents/<name>/)',
    options: ['cwd', 'http', 'a2a', 'host', 'token', 'store'],
  },
  'agents serve': {
    synopsis: ['agent-spaces agents serve <config | dir... | url...> [--http <port>]'],
    description:
      'serve the orchestration tools over MCP: list_agents, execute_agent, get_agent_memory\n(with a store, sessions are kept in it, so replicas share them)',
    options: ['cwd', 'http', 'host', 'token', 'store'],
  },
  studio: {
    synopsis: ['agent-spaces studio [--port <p>] [--open] [--store <url>] [--eval-dir <dir>]'],
    description:
      'a local web UI over the space (loopback only, a token in the address it prints): capabilities,\nplayground, function tester, agent tool editor, runs and traces, approvals (also of run, task and serve\nstarted with --studio and its address), eval runs side by side. With a store: runs go to its workers,\nand the inbox decides the approvals of every run in it',
    options: ['config', 'cwd', 'port', 'open', 'store', 'eval-dir'],
  },
  demo: {
    synopsis: ['agent-spaces demo'],
    description:
      'in a checkout of Agent Spaces (what npm start runs): build the example space and run\nexamples/programs/morning-trains.ts',
    options: ['config', 'cwd'],
  },
  eval: {
    synopsis: [
      'agent-spaces eval <suite> [--arms direct,code,planner] [--model oracle | --model <id> --base-url <url>] [--tasks <ids>] [--repeat <n>] [--out <dir>] [--resume] [--json]',
    ],
    description:
      "run an eval suite (a bundled one: tau2-retail, or a folder holding suite.ts) in each arm — direct\n(every function as a function tool), code (the serve surface: search_tools, get_types, execute_code),\nplanner (the task command's planner) — and report success, model turns, tokens, tool calls, code runs,\ntime and cost per arm and task (stdout; progress on stderr; results per task in the run folder).\n--model defaults to oracle here: a model replaying each task's ground truth, started by the command;\nanother model needs --base-url (key: $OPENAI_API_KEY). Exit 1 when an oracle run fails, 130 when\ninterrupted (--resume --out <dir> goes on)",
    options: [
      'cwd',
      'json',
      'model',
      'base-url',
      'arms',
      'tasks',
      'repeat',
      'out',
      'resume',
      'budget-steps',
      'budget-tool-calls',
      'budget-code-runs',
      'budget-cost',
    ],
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

/** The options every command takes. */
const EVERYWHERE: OptionName[] = ['help', 'version'];

/** Commands that are only a group of subcommands. */
const GROUPS = ['capabilities', 'agent', 'agents', 'approvals', 'store'];

export type OptionValues = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };

export type CommandLine =
  | { action: 'help'; text: string; exitCode: 0 | 2 }
  | { action: 'version' }
  | { action: 'command'; command: CommandName; values: OptionValues; args: string[] };

/**
 * What the command line asks for: a help text (with the exit code it ends with), the version, or a
 * command with its options and its remaining arguments. Throws `UsageError` for an unknown option, an
 * option the command does not take, or an unknown command; a group without its subcommand gets the
 * group's help with exit code 2, as no command at all gets the whole help.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, tokens: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(parseArgsMessage(error as Error & { code?: string }), { ...commandNamedIn(argv) });
  }
  const { positionals, tokens } = parsed;
  const values = parsed.values as OptionValues;
  if (values.version === true) return { action: 'version' };
  const wantsHelp = values.help === true;
  const [first, second] = positionals;
  if (first === undefined) return { action: 'help', text: helpText(), exitCode: wantsHelp ? 0 : 2 };
  if (GROUPS.includes(first)) {
    const subcommands = commandsOf(first);
    if (second === undefined) return { action: 'help', text: helpText(first), exitCode: wantsHelp ? 0 : 2 };
    if (!subcommands.includes(`${first} ${second}` as CommandName)) {
      throw new UsageError(
        `unknown subcommand "${first} ${second}" (${listOfChoices(subcommands.map((name) => name.slice(first.length + 1)))})`,
        { command: first },
      );
    }
  } else if (!(first in COMMANDS)) {
    throw new UsageError(
      `unknown command "${first}"${didYouMean(first, [...new Set(Object.keys(COMMANDS).map((name) => name.split(' ')[0] as string))])}`,
    );
  }
  const command = (GROUPS.includes(first) ? `${first} ${second ?? ''}` : first) as CommandName;
  if (wantsHelp) return { action: 'help', text: helpText(command), exitCode: 0 };
  checkOptions(
    command,
    tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : [])),
  );
  return { action: 'command', command, values, args: positionals.slice(command.split(' ').length) };
}

/** The options `command` takes, --help and --version included. */
export function optionsOf(command: CommandName): OptionName[] {
  return [...COMMANDS[command].options, ...EVERYWHERE];
}

/** An option given to a command that does not take it is an error, not silently ignored. */
function checkOptions(command: CommandName, given: string[]): void {
  const allowed: string[] = optionsOf(command);
  const stray = given.find((name) => !allowed.includes(name));
  if (stray !== undefined) throw new UsageError(`--${stray} is not an option of "${command}"`, { command });
}

/**
 * What node:util's parseArgs refused, said the CLI's way: its "Unknown option '--x'. To specify a
 * positional argument starting with a '-', …" becomes `unknown option --x`, a missing value names the
 * value the option takes. Anything else keeps parseArgs' words.
 */
function parseArgsMessage(error: Error & { code?: string }): string {
  const quoted = /'(-[^' ]*)/.exec(error.message)?.[1];
  if (quoted === undefined) return error.message;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return `unknown option ${quoted}${quoted.startsWith('--') ? didYouMean(quoted.slice(2), Object.keys(OPTIONS), '--') : ''}`;
  const name = quoted.replace(/^--?/, '');
  const spec: OptionSpec | undefined = name in OPTIONS ? OPTIONS[name as OptionName] : undefined;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && spec !== undefined) {
    return spec.type === 'string' ? `--${name} needs a value: --${name} ${spec.value ?? '<value>'}` : `--${name} takes no value`;
  }
  return error.message;
}

/** The command (or group) a command line names, read leniently (it did not parse): its help is the one to point at. */
function commandNamedIn(argv: string[]): { command?: string } {
  const [first, second] = parseArgs({ args: argv, allowPositionals: true, strict: false, options: OPTIONS }).positionals;
  if (first === undefined) return {};
  if (GROUPS.includes(first)) return `${first} ${second ?? ''}` in COMMANDS ? { command: `${first} ${second ?? ''}` } : { command: first };
  return first in COMMANDS ? { command: first } : {};
}

/** ` (did you mean "run"?)` for a name a typo or two away from one of `names` (or the start of one); else nothing. */
export function didYouMean(given: string, names: string[], prefix = ''): string {
  const scored = names.map((name) => ({ name, distance: name.startsWith(given) && given.length >= 2 ? 0 : editDistance(given, name) }));
  const best = scored
    .filter(({ distance }) => distance <= Math.min(2, Math.floor(given.length / 2)))
    .sort((a, b) => a.distance - b.distance)[0];
  return best === undefined ? '' : ` (did you mean "${prefix}${best.name}"?)`;
}

/** Edits (insert, delete, substitute, swap two neighbours) between two words. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** `a`, `a or b`, `a, b or c`. */
function listOfChoices(names: string[]): string {
  return names.length <= 2 ? names.join(' or ') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
}

function commandsOf(group: string): CommandName[] {
  return (Object.keys(COMMANDS) as CommandName[]).filter((name) => name.startsWith(`${group} `));
}

const FOOTER = `Exit codes: 0 success, 1 the build or run failed, 2 bad usage or configuration, 130 interrupted (143: SIGTERM).
Node must run with --no-node-snapshot where an isolate is created; the agent-spaces bin does that for you.`;

/**
 * The whole help (no topic), a group's (`capabilities`: its subcommands), or one command's: its usage
 * and exactly the options it takes.
 */
export function helpText(topic?: string): string {
  const commands: CommandName[] =
    topic === undefined ? (Object.keys(COMMANDS) as CommandName[]) : topic in COMMANDS ? [topic as CommandName] : commandsOf(topic);
  const usage = commands.flatMap((name) => [
    ...COMMANDS[name].synopsis.map((line) => `  ${line}`),
    ...indent(COMMANDS[name].description, 6),
  ]);
  const taken = new Set(commands.flatMap((name) => optionsOf(name)));
  const options = (Object.keys(OPTIONS) as OptionName[])
    .filter((name) => taken.has(name))
    .flatMap((name) => optionHelp(name, topic === undefined));
  const title = topic === undefined ? 'agent-spaces — let an LLM act by writing TypeScript against typed @capabilities/* modules\n\n' : '';
  return `${title}Usage:\n${usage.join('\n')}\n\nOptions:\n${options.join('\n')}\n\n${FOOTER}`;
}

/** Where option descriptions start: after the longest flag. */
const OPTION_COLUMN = 4 + Math.max(...(Object.keys(OPTIONS) as OptionName[]).map((name) => flagOf(name).length));

function flagOf(name: OptionName): string {
  const spec: OptionSpec = OPTIONS[name];
  return `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`;
}

/** An option's lines; in the whole help, prefixed with the commands that take it (unless all do). */
function optionHelp(name: OptionName, sayWhich: boolean): string[] {
  const spec: OptionSpec = OPTIONS[name];
  const users = [
    ...new Set(
      (Object.keys(COMMANDS) as CommandName[])
        .filter((command) => optionsOf(command).includes(name))
        .map((command) => command.split(' ')[0]),
    ),
  ];
  const which =
    sayWhich && users.length < new Set(Object.keys(COMMANDS).map((command) => command.split(' ')[0])).size ? `(${users.join(', ')}) ` : '';
  const [head = '', ...rest] = `${which}${spec.help}`.split('\n');
  return [`  ${flagOf(name).padEnd(OPTION_COLUMN - 2)}${head}`, ...rest.map((line) => `${' '.repeat(OPTION_COLUMN)}${line}`)];
}

function indent(text: string, spaces: number): string[] {
  return text.split('\n').map((line) => `${' '.repeat(spaces)}${line}`);
}
