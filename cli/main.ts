import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
// Nothing else is imported up front: --help and --version answer without loading the library, and each
// command loads its own module (and with it the library) only when it runs.

/** Each command's usage lines, in the order of the help. */
const USAGE: Record<string, string> = {
  capabilities: `  agent-spaces capabilities build [--force] [--json]   compile every capability source into the build output
  agent-spaces capabilities list [--json]              list modules and functions with their signatures`,
  run: '  agent-spaces run <file.ts | -> [options]             run a program in the sandbox (- reads stdin)',
  serve: `  agent-spaces serve [--http <port>] [--host <addr>] [--token <t>]
                                                       serve the space as an MCP server (stdio by default):
                                                       tools search_tools, get_types, execute_code`,
  task: `  agent-spaces task "<task>" [options]                 give a task in words to the model (planner): it searches,
                                                       calls tools and runs code within a budget; progress on
                                                       stderr, the summary on stdout
  agent-spaces task --replay <trace.jsonl>             re-run a recorded task's model replies against the tools`,
  agent: `  agent-spaces agent serve <dir> [--http <port>]       serve a Tools-mode agent directory as an MCP server (stdio by default)
  agent-spaces agent serve <dir...> --a2a <port>       serve agent directories as A2A servers (cards at /agents/<name>/)`,
  agents: `  agent-spaces agents serve <config | dir... | url...> [--http <port>]
                                                       MCP tools list_agents, execute_agent, get_agent_memory`,
  demo: '  agent-spaces demo                                    build the example space and run examples/programs/morning-trains.ts',
};

/** Each option's help, and the commands it applies to (none: every command). */
const OPTION_HELP: { text: string; commands?: string[] }[] = [
  { text: '  --config <file>        config file (default: agent-spaces.config.{ts,mts,js,mjs,json} in --cwd)', commands: ['capabilities', 'run', 'serve', 'task', 'demo'] },
  { text: "  --cwd <dir>            the space's folder (default: the current directory)" },
  { text: '  --json                 machine-readable output on stdout', commands: ['capabilities', 'run', 'task'] },
  { text: '  --force                (build) re-emit every module even when unchanged', commands: ['capabilities'] },
  { text: '  --no-check             (run) skip the type-check against the built declarations', commands: ['run'] },
  { text: '  --approve <all|none>   (run, task) answer approval requests without asking (default: ask on a terminal, deny otherwise)', commands: ['run', 'task'] },
  { text: '  --isolation <mode>     (run, serve) worker (default: pooled sandbox processes) or in-process (trusted code only)', commands: ['run', 'serve'] },
  { text: '  --timeout <ms>         (run) wall-clock limit of the run', commands: ['run'] },
  { text: '  --http <port>          (serve) Streamable HTTP on this port (0 = any free port) instead of stdio, path /mcp', commands: ['serve', 'agent', 'agents'] },
  { text: '  --a2a <port>           (agent serve) serve the agent directories as A2A servers on this port', commands: ['agent'] },
  { text: '  --host <addr>          (serve) address to bind (default 127.0.0.1)', commands: ['serve', 'agent', 'agents'] },
  { text: '  --token <t>            require "Authorization: Bearer <t>" over HTTP and A2A; needed for an address that is not loopback (default: $AGENT_SPACES_SERVE_TOKEN)', commands: ['serve', 'agent', 'agents'] },
  { text: '  --model <id>           (task) model id (default: config model.model, $AGENT_SPACES_MODEL, gpt-4.1-mini)', commands: ['task'] },
  {
    text: `  --base-url <url>       (task) OpenAI-compatible endpoint (default: config, $AGENT_SPACES_BASE_URL, OpenAI);
                         a key ($OPENAI_API_KEY or model.apiKey) is required for OpenAI, optional elsewhere`,
    commands: ['task'],
  },
  { text: '  --context <text>       (task) extra context for the model', commands: ['task'] },
  { text: '  --trace <file>         (task) write the trace (events and model replies, JSON lines) to this file', commands: ['task'] },
  { text: "  --replay <file>        (task) replay a trace's model replies instead of asking a model", commands: ['task'] },
  {
    text: `  --budget-steps <n>     (task) most model steps (default 10); also --budget-tool-calls <n> (30),
                         --budget-code-runs <n> (3), --budget-cost <usd> (0.5)`,
    commands: ['task'],
  },
  { text: '  -v, --verbose          (run) print every capability call and approval on stderr', commands: ['run'] },
  { text: '  -h, --help             this help (after a command: that command\'s help)' },
  { text: '  --version              the version of agent-spaces', commands: [] },
];

const FOOTER = `Exit codes: 0 success, 1 the build or run failed, 2 bad usage or configuration.
Node must run with --no-node-snapshot where an isolate is created; the agent-spaces bin does that for you.`;

/** The whole help, or one command's. */
function helpText(command?: string): string {
  const known = command !== undefined && command in USAGE ? command : undefined;
  const options = OPTION_HELP.filter((option) => known === undefined || option.commands === undefined || option.commands.includes(known)).map((option) => option.text);
  const usage = known === undefined ? Object.values(USAGE) : [USAGE[known]];
  const title = known === undefined ? 'agent-spaces — let an LLM act by writing TypeScript against typed @capabilities/* modules\n\n' : '';
  return `${title}Usage:\n${usage.join('\n')}\n\nOptions:\n${options.join('\n')}\n\n${FOOTER}`;
}

/** The version in package.json (found by the package's own name, from the sources and from dist/ alike). */
function version(): string {
  const file = fileURLToPath(import.meta.resolve('agent-spaces/package.json'));
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      tokens: true,
      options: {
        config: { type: 'string' },
        cwd: { type: 'string' },
        json: { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        'no-check': { type: 'boolean', default: false },
        approve: { type: 'string' },
        isolation: { type: 'string' },
        timeout: { type: 'string' },
        http: { type: 'string' },
        host: { type: 'string' },
        token: { type: 'string' },
        verbose: { type: 'boolean', short: 'v', default: false },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        context: { type: 'string' },
        trace: { type: 'string' },
        replay: { type: 'string' },
        'budget-steps': { type: 'string' },
        'budget-tool-calls': { type: 'string' },
        'budget-code-runs': { type: 'string' },
        'budget-cost': { type: 'string' },
        a2a: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    const { reportError, UsageError } = await import('./output.js');
    return reportError(new UsageError((error as Error).message));
  }
  const { values, positionals, tokens } = parsed;
  if (values.version) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${helpText(positionals[0])}\n`);
    return values.help ? 0 : 2;
  }
  const cwd = values.cwd ?? process.cwd();
  const common = { cwd, ...(values.config ? { config: values.config } : {}), json: values.json };
  const { reportError, UsageError } = await import('./output.js');
  try {
    if (values.cwd !== undefined && !isFolder(values.cwd)) throw new UsageError(`--cwd ${values.cwd}: no such folder`);
    const [command, sub, ...rest] = positionals;
    checkOptions(command === 'capabilities' ? `capabilities ${sub ?? ''}` : (command ?? ''), tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : [])), UsageError);
    switch (command) {
      case 'capabilities':
        if (sub !== 'build' && sub !== 'list') throw new UsageError(`unknown subcommand "capabilities${sub ? ` ${sub}` : ''}" (build or list)`);
        if (rest.length > 0) throw new UsageError(`unexpected argument "${rest.join(' ')}" (capabilities ${sub} takes options only)`);
        if (sub === 'build') return await (await import('./commands/capabilities.js')).buildCommand({ ...common, force: values.force });
        return await (await import('./commands/capabilities.js')).listCommand({ ...common, force: false });
      case 'run': {
        if (!sub) throw new UsageError('run needs a program: agent-spaces run <file.ts | ->');
        if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
        let timeoutMs: number | undefined;
        if (values.timeout !== undefined) {
          timeoutMs = Number(values.timeout);
          if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout takes a positive number of milliseconds (got "${values.timeout}")`);
        }
        const { runCommand } = await import('./commands/run.js');
        return await runCommand({
          ...common,
          file: sub,
          check: !values['no-check'],
          verbose: values.verbose,
          ...(values.approve !== undefined ? { approve: values.approve } : {}),
          ...(values.isolation !== undefined ? { isolation: values.isolation } : {}),
          ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        });
      }
      case 'serve': {
        if (sub) throw new UsageError(`unexpected argument "${sub}" (serve takes options only)`);
        const { serveCommand } = await import('./commands/serve.js');
        return await serveCommand({
          cwd,
          ...(values.config ? { config: values.config } : {}),
          ...(values.http !== undefined ? { http: values.http } : {}),
          ...(values.host !== undefined ? { host: values.host } : {}),
          ...(values.token !== undefined ? { token: values.token } : {}),
          ...(values.isolation !== undefined ? { isolation: values.isolation } : {}),
        });
      }
      case 'task': {
        if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the task: agent-spaces task "<task>")`);
        const { parseBudgetOptions, taskCommand } = await import('./commands/task.js');
        return await taskCommand({
          ...common,
          ...(sub !== undefined ? { task: sub } : {}),
          budget: parseBudgetOptions(values),
          ...(values.trace !== undefined ? { trace: values.trace } : {}),
          ...(values.replay !== undefined ? { replay: values.replay } : {}),
          ...(values.approve !== undefined ? { approve: values.approve } : {}),
          ...(values.model !== undefined ? { model: values.model } : {}),
          ...(values['base-url'] !== undefined ? { baseURL: values['base-url'] } : {}),
          ...(values.context !== undefined ? { context: values.context } : {}),
        });
      }
      case 'agent':
        if (sub !== 'serve') throw new UsageError(`unknown subcommand "agent ${sub ?? ''}" (serve)`);
        return await (await import('./commands/agent.js')).agentServeCommand({ cwd, dirs: rest, ...pick(values, ['http', 'a2a', 'host', 'token']) });
      case 'agents':
        if (sub !== 'serve') throw new UsageError(`unknown subcommand "agents ${sub ?? ''}" (serve)`);
        return await (await import('./commands/agents.js')).agentsServeCommand({ cwd, inputs: rest, ...pick(values, ['http', 'host', 'token']) });
      case 'demo':
        if (sub) throw new UsageError(`unexpected argument "${sub}" (demo takes options only)`);
        return await (await import('./commands/demo.js')).demoCommand(common);
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    return reportError(error);
  }
}

const SPACE_OPTIONS = ['config', 'cwd', 'help'];

/** The options each command takes (commands not listed check their own). */
const COMMAND_OPTIONS: Record<string, string[]> = {
  'capabilities build': [...SPACE_OPTIONS, 'json', 'force'],
  'capabilities list': [...SPACE_OPTIONS, 'json'],
  run: [...SPACE_OPTIONS, 'json', 'no-check', 'approve', 'isolation', 'timeout', 'verbose'],
  serve: [...SPACE_OPTIONS, 'http', 'host', 'token', 'isolation'],
  demo: SPACE_OPTIONS,
};

/** An option given to a command that does not take it is an error, not silently ignored. */
function checkOptions(command: string, given: string[], UsageError: new (message: string) => Error): void {
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) return;
  const stray = given.find((name) => !allowed.includes(name));
  if (stray !== undefined) throw new UsageError(`--${stray} is not an option of "${command}"`);
}

function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

/** The given string options that were set. */
function pick<K extends string>(values: Partial<Record<K, unknown>>, keys: K[]): Partial<Record<K, string>> {
  const picked: Partial<Record<K, string>> = {};
  for (const key of keys) if (typeof values[key] === 'string') picked[key] = values[key];
  return picked;
}

/** Whether this module is the program Node was started with (the bin may import it to answer --help or --version in its own process). */
function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return pathToFileURL(realpathSync(path.resolve(entry))).href === import.meta.url;
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = await main(process.argv.slice(2));
