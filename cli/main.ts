import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { agentServeCommand } from './commands/agent.js';
import { agentsServeCommand } from './commands/agents.js';
import { buildCommand, listCommand } from './commands/capabilities.js';
import { demoCommand } from './commands/demo.js';
import { runCommand } from './commands/run.js';
import { serveCommand } from './commands/serve.js';
import { parseBudgetOptions, taskCommand } from './commands/task.js';
import { reportError, UsageError } from './output.js';

const HELP = `agent-spaces — let an LLM act by writing TypeScript against typed @capabilities/* modules

Usage:
  agent-spaces capabilities build [--force] [--json]   compile every capability source into the build output
  agent-spaces capabilities list [--json]              list modules and functions with their signatures
  agent-spaces run <file.ts | -> [options]             run a program in the sandbox (- reads stdin)
  agent-spaces serve [--http <port>] [--host <addr>] [--token <t>]
                                                       serve the space as an MCP server (stdio by default):
                                                       tools search_tools, get_types, execute_code
  agent-spaces task "<task>" [options]                 give a task in words to the model (planner): it searches,
                                                       calls tools and runs code within a budget; progress on
                                                       stderr, the summary on stdout
  agent-spaces task --replay <trace.jsonl>             re-run a recorded task's model replies against the tools
  agent-spaces agent serve <dir> [--http <port>]       serve a Tools-mode agent directory as an MCP server (stdio by default)
  agent-spaces agent serve <dir...> --a2a <port>       serve agent directories as A2A servers (cards at /agents/<name>/)
  agent-spaces agents serve <config | dir... | url...> [--http <port>]
                                                       MCP tools list_agents, execute_agent, get_agent_memory
  agent-spaces demo                                    build the example space and run examples/programs/morning-trains.ts

Options:
  --config <file>        config file (default: agent-spaces.config.{ts,mts,js,mjs,json} in --cwd)
  --cwd <dir>            the space's folder (default: the current directory)
  --json                 machine-readable output on stdout
  --force                (build) re-emit every module even when unchanged
  --no-check             (run) skip the type-check against the built declarations
  --approve <all|none>   (run, task) answer approval requests without asking (default: ask on a terminal, deny otherwise)
  --isolation <mode>     (run, serve) worker (default: pooled sandbox processes) or in-process (trusted code only)
  --timeout <ms>         (run) wall-clock limit of the run
  --http <port>          (serve) Streamable HTTP on this port (0 = any free port) instead of stdio, path /mcp
  --host <addr>          (serve) address to bind (default 127.0.0.1)
  --token <t>            (serve) require "Authorization: Bearer <t>" (default: $AGENT_SPACES_SERVE_TOKEN)
  --model <id>           (task) model id (default: config model.model, $AGENT_SPACES_MODEL, gpt-4.1-mini)
  --base-url <url>       (task) OpenAI-compatible endpoint (default: config, $AGENT_SPACES_BASE_URL, OpenAI);
                         a key ($OPENAI_API_KEY or model.apiKey) is required for OpenAI, optional elsewhere
  --context <text>       (task) extra context for the model
  --trace <file>         (task) write the trace (events and model replies, JSON lines) to this file
  --replay <file>        (task) replay a trace's model replies instead of asking a model
  --budget-steps <n>     (task) most model steps (default 10); also --budget-tool-calls <n> (30),
                         --budget-code-runs <n> (3), --budget-cost <usd> (0.5)
  -v, --verbose          (run) print every capability call and approval on stderr
  -h, --help             this help

Exit codes: 0 success, 1 the build or run failed, 2 bad usage or configuration.
Node must run with --no-node-snapshot where an isolate is created; the agent-spaces bin does that for you.`;

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
      },
    });
  } catch (error) {
    return reportError(new UsageError((error as Error).message));
  }
  const { values, positionals, tokens } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(`${HELP}\n`);
    return values.help ? 0 : 2;
  }
  const cwd = values.cwd ?? process.cwd();
  const common = { cwd, ...(values.config ? { config: values.config } : {}), json: values.json };
  try {
    if (values.cwd !== undefined && !isFolder(values.cwd)) throw new UsageError(`--cwd ${values.cwd}: no such folder`);
    const [command, sub, ...rest] = positionals;
    checkOptions(command === 'capabilities' ? `capabilities ${sub ?? ''}` : (command ?? ''), tokens.flatMap((token) => (token.kind === 'option' ? [token.name] : [])));
    switch (command) {
      case 'capabilities':
        if (sub !== 'build' && sub !== 'list') throw new UsageError(`unknown subcommand "capabilities${sub ? ` ${sub}` : ''}" (build or list)`);
        if (rest.length > 0) throw new UsageError(`unexpected argument "${rest.join(' ')}" (capabilities ${sub} takes options only)`);
        if (sub === 'build') return await buildCommand({ ...common, force: values.force });
        return await listCommand({ ...common, force: false });
      case 'run': {
        if (!sub) throw new UsageError('run needs a program: agent-spaces run <file.ts | ->');
        if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
        let timeoutMs: number | undefined;
        if (values.timeout !== undefined) {
          timeoutMs = Number(values.timeout);
          if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new UsageError(`--timeout takes a positive number of milliseconds (got "${values.timeout}")`);
        }
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
      case 'serve':
        if (sub) throw new UsageError(`unexpected argument "${sub}" (serve takes options only)`);
        return await serveCommand({
          cwd,
          ...(values.config ? { config: values.config } : {}),
          ...(values.http !== undefined ? { http: values.http } : {}),
          ...(values.host !== undefined ? { host: values.host } : {}),
          ...(values.token !== undefined ? { token: values.token } : {}),
          ...(values.isolation !== undefined ? { isolation: values.isolation } : {}),
        });
      case 'task':
        if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the task: agent-spaces task "<task>")`);
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
      case 'agent':
        if (sub !== 'serve') throw new UsageError(`unknown subcommand "agent ${sub ?? ''}" (serve)`);
        return await agentServeCommand({ cwd, dirs: rest, ...pick(values, ['http', 'a2a', 'host', 'token']) });
      case 'agents':
        if (sub !== 'serve') throw new UsageError(`unknown subcommand "agents ${sub ?? ''}" (serve)`);
        return await agentsServeCommand({ cwd, inputs: rest, ...pick(values, ['http', 'host', 'token']) });
      case 'demo':
        if (sub) throw new UsageError(`unexpected argument "${sub}" (demo takes options only)`);
        return await demoCommand(common);
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
function checkOptions(command: string, given: string[]): void {
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

const exitCode = await main(process.argv.slice(2));
process.exitCode = exitCode;
