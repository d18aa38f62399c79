/**
 * Every option the CLI takes, with its type, its value's placeholder and its help: one vocabulary, so a
 * flag means the same to every command that takes it and is described once. A command module names the
 * ones it takes (cli/command.ts); the help lists them in this order.
 */
export interface OptionSpec {
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
  isolation: {
    type: 'string',
    value: '<mode>',
    help: 'worker (default: pooled sandbox processes), thread (sandbox threads of this process, no process hop: trusted code) or in-process (trusted code only)',
  },
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
  spaces: {
    type: 'string',
    value: '<dirs>',
    help: "several spaces, each a folder with its own config ([name=]dir, comma-separated, relative to --cwd; name default:\nthe folder's name): serve --http serves each at /spaces/<name>/mcp (one host); studio gets a space picker",
  },
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
  idle: { type: 'string', value: '<minutes>', help: 'daemon: stop after this many minutes without a run (default 30)' },
  reason: { type: 'string', value: '<text>', help: 'why, recorded with the decision' },
  verbose: { type: 'boolean', short: 'v', help: 'print every capability call and approval on stderr' },
  arms: { type: 'string', value: '<list>', help: 'eval: the arms to compare, from direct,code,planner (default all three)' },
  tasks: { type: 'string', value: '<ids>', help: 'eval: which tasks: ids and ranges (0,3,10-14), split:<name> or first:<n> (default all)' },
  repeat: { type: 'string', value: '<n>', help: 'eval: run every task n times (default 1)' },
  out: { type: 'string', value: '<dir>', help: 'eval: the run folder (default .agent-spaces/eval/<suite>-<time>)' },
  resume: { type: 'boolean', help: 'eval: go on with the run in --out, skipping its finished tasks' },
  as: {
    type: 'string',
    value: '<group.name>',
    help: 'capabilities save: the function to save as (reports.weeklySummary → @capabilities/saved-reports)',
  },
  'save-programs': {
    type: 'boolean',
    help: 'serve: offer the save_program tool, which saves a program as a function of the space (off by default: it writes)',
  },
  description: {
    type: 'string',
    value: '<text>',
    help: 'capabilities save: what the saved function does (for search and its declaration)',
  },
  help: { type: 'boolean', short: 'h', help: "this help (after a command: that command's help)" },
  version: { type: 'boolean', help: 'the version of agent-spaces' },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

/** The options given on a command line: strings for options that take a value, `true` for flags. */
export type OptionValues = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'string' ? string : boolean };
