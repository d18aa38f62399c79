import { readFile } from 'node:fs/promises';
import type { ResolvedConfig } from '../../config/index.js';
import { createRedactor, type RunLog, type RunResult } from '../../core/index.js';
import type { Space, SpaceOptions } from '../../space/index.js';
import { formatArguments } from '../../bridge/index.js';
import { createCliApprovalHandler } from '../approval-prompt.js';
import { buildForRun } from '../build-report.js';
import { createStudioApprovals, studioAddressFrom } from '../studio-approvals.js';
import { printJson, printText, progress, UsageError } from '../output.js';
import { storeOf } from '../store-option.js';
import { loadRunConfig, prestartRunWorker } from './run-placement.js';
import { ENGINE_CHOICES, ISOLATIONS, type EngineChoice, type Isolation } from '../../runtime/index.js';

export interface RunCommandOptions {
  cwd: string;
  config?: string;
  file: string;
  json: boolean;
  check: boolean;
  approve?: string;
  /** A studio's address (token included): its Approvals inbox decides the calls that require approval. */
  studio?: string;
  isolation?: string;
  engine?: string;
  timeoutMs?: number;
  verbose: boolean;
  /** A durable runs' store: the program is queued there and run by a worker. */
  store?: string;
}

export async function runCommand(options: RunCommandOptions): Promise<number> {
  if (options.isolation !== undefined && !(ISOLATIONS as readonly string[]).includes(options.isolation)) {
    throw new UsageError(`--isolation takes "worker", "thread" or "in-process" (got "${options.isolation}")`);
  }
  if (options.engine !== undefined && !(ENGINE_CHOICES as readonly string[]).includes(options.engine)) {
    throw new UsageError(`--engine takes ${ENGINE_CHOICES.join(', ')} (got "${options.engine}")`);
  }
  const code = options.file === '-' ? await readStdin() : await readProgram(options.file);
  const config = await loadRunConfig(options.cwd, options.config);
  const store = storeOf(options.store, config);
  if (store !== undefined) return (await import('./durable-run.js')).durableRunCommand({ ...options, store, code });
  const studioAddress = studioAddressFrom(options.studio, options.approve);
  const studio = studioAddress
    ? createStudioApprovals(studioAddress, {
        kind: 'run',
        cwd: options.cwd,
        detail: options.file === '-' ? 'a program on stdin' : options.file,
      })
    : undefined;
  const approvalHandler = studio?.handler ?? createCliApprovalHandler(options.approve);
  // The options are checked (a refused studio address throws above): the run's sandbox worker starts
  // now, if it has not (the bin's process starts it as soon as it knows the placement: run.command.ts).
  await prestartRunWorker(options);
  const space = await openRunSpace({
    config,
    ...(approvalHandler ? { approvalHandler } : {}),
    ...(options.isolation ? { isolation: options.isolation as Isolation } : {}),
    ...(options.engine ? { engine: options.engine as EngineChoice } : {}),
    // One program: one sandbox process to start, not the pool's default two.
    sandboxDefaults: { workers: 1 },
    onEvent: (event) => {
      studio?.onEvent(event);
      // A result unlike its inferred type is worth knowing even without --verbose: the declaration is out of date.
      if (event.type === 'result-drift') progress(`  [drift] ${event.message}`);
      if (!options.verbose) return;
      if (event.type === 'approval-required') {
        progress(`  [approval] ${event.capability}.${event.function}: ${event.message} arguments: ${formatArguments(event.params)}`);
      } else if (event.type === 'tool-call-end') {
        progress(
          `  [call] ${event.capability}.${event.function} ${event.ok ? 'ok' : `failed: ${event.error?.code}`} (${event.durationMs.toFixed(1)} ms, ${event.sizeBytes} B)`,
        );
      } else if (event.type === 'approval-decided') {
        progress(
          `  [approval] ${event.capability}.${event.function}: ${event.approved ? 'approved' : 'denied'}${event.reason ? ` (${event.reason})` : ''}`,
        );
      }
    },
  });
  studio?.useSecrets(space.secrets);
  if (studio) progress(`approvals: asked in the studio at ${studio.origin}`);
  try {
    // A program that got hold of a secret (a tool that returned one) must not print it: what the run
    // returns and logs loses the host's secrets, as the planner's output does.
    const redact = createRedactor({ secrets: space.secrets });
    await buildForRun(space);
    // Without --json, each log line is printed as the program writes it, so a person asked to approve a
    // call has read what the program said before it.
    const result = redact(
      await space.run(code, {
        check: options.check,
        ...(options.json ? {} : { onLog: (log: RunLog) => progress(formatLog(redact(log))) }),
        ...(options.timeoutMs ? { limits: { timeoutMs: options.timeoutMs } } : {}),
      }),
    );
    // Ctrl-C at a terminal reaches the sandbox worker too, and its death may be seen before this
    // process's own signal handler ran: one turn of the event loop lets that handler end the command
    // ("interrupted") instead of a report blaming the sandbox.
    if (!result.success) await new Promise((resolve) => setImmediate(resolve));
    if (options.verbose && result.engine !== undefined) progress(`  [engine] ${result.engine.name}: ${result.engine.reason}`);
    if (options.json) printJson(result);
    else printRunResult(result, options.file, { logsPrinted: true });
    return result.success ? 0 : 1;
  } finally {
    studio?.close();
    await space.close();
  }
}

/**
 * `openSpace` of agents/ with the config's agents; without any (most spaces) it is `createSpace`, so
 * the agents, the planner and the MCP server they bring (about 130 modules) are not loaded for a run.
 */
async function openRunSpace(options: SpaceOptions & { config: ResolvedConfig }): Promise<Space> {
  if (options.config.agents.length === 0) return (await import('../../space/index.js')).createSpace(options);
  return (await import('../../agents/index.js')).openSpace(options);
}

export function printRunResult(result: RunResult, file: string, options: { logsPrinted?: boolean } = {}): void {
  if (options.logsPrinted !== true) for (const log of result.logs) progress(formatLog(log));
  if (result.success) {
    if (result.result !== undefined && result.result !== null) {
      printText(typeof result.result === 'string' ? result.result : JSON.stringify(result.result, null, 2));
    }
    progress(`✓ ${result.calls} call${result.calls === 1 ? '' : 's'}, ${Math.round(result.durationMs)} ms`);
    return;
  }
  const error = result.error;
  const where = error?.line ? `${file}:${error.line}${error.column ? `:${error.column}` : ''}: ` : '';
  progress(`✗ ${where}${error?.name ?? 'Error'}${error?.code ? ` [${error.code}]` : ''}: ${error?.message ?? 'failed'}`);
  for (const diagnostic of error?.diagnostics ?? [])
    progress(`  ${file}:${diagnostic.line}:${diagnostic.column} ${diagnostic.code ? `TS${diagnostic.code}: ` : ''}${diagnostic.message}`);
}

function formatLog(log: RunLog): string {
  return `${log.level === 'log' || log.level === 'info' ? '' : `[${log.level}] `}${log.message}`;
}

async function readProgram(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read program "${file}": ${unreadableReason(error as NodeJS.ErrnoException)}`);
  }
}

/** Why a file could not be read, in words (the code stays for a search). */
function unreadableReason(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT') return 'no such file (ENOENT)';
  if (error.code === 'EISDIR') return 'it is a folder, not a file (EISDIR)';
  if (error.code === 'EACCES') return 'permission denied (EACCES)';
  return error.code ?? String(error);
}

async function readStdin(): Promise<string> {
  // Typed at a terminal, `run -` would otherwise wait in silence.
  if (process.stdin.isTTY) progress('reading the program from the terminal: end it with Ctrl-D on a line of its own');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
