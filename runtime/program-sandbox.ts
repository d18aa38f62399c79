/**
 * The front end every sandbox shares: options, type-check, compile, hand the JavaScript to an
 * executor, then map positions in the result back to the TypeScript the model wrote.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { SandboxError, ToolCallError } from '../core/errors.js';
import { keepAliveUntil } from '../core/keep-alive.js';
import type { CapabilityCallHandler, CapabilityCallParams } from '../core/protocol.js';
import type { Diagnostic, RunError, RunLog, RunResult } from '../core/run-result.js';
import type { ExecuteOptions, IsolateExecutor } from './isolate-executor.js';
import { listCapabilityModules, withModuleHint } from './host/capability-modules.js';
import { compileProgram, type CompiledProgram } from './program/compile-program.js';
import { PROGRAM_FILENAME } from './program/program-filename.js';
import { resolveRunLimits } from './resolve-run-limits.js';
import type { RunLimits, RunOptions, Sandbox } from './sandbox.js';
import type { TypeChecker } from './type-check.js';

export function createProgramSandbox(executor: IsolateExecutor, options: { outDir: string; limits: RunLimits }): Sandbox {
  let closed = false;
  let checker: Promise<TypeChecker> | undefined;

  /** The failure of a program that does not type-check, or `undefined` when it does. */
  const typeCheckFailure = async (
    code: string,
    runOptions: RunOptions,
    visibleModules: () => readonly string[],
    failed: (error: RunError) => RunResult,
    limits: RunLimits,
    started: number,
  ): Promise<RunResult | undefined> => {
    const { maxOutputBytes } = limits;
    // Off this thread and bounded: a check worker with a time and a heap limit (type-check.ts), and
    // within the run's own time limit, counted from the run's start.
    checker ??= keepAliveUntil(import('./type-check.js')).then(({ createTypeChecker }) => createTypeChecker({ outDir: options.outDir }));
    const loaded = await checker;
    const checked = withoutHiddenSuggestions(
      await loaded.check(code, { timeoutMs: limits.timeoutMs - (performance.now() - started) }),
      runOptions.hiddenFunctions ?? [],
    );
    const all = withModuleHints(checked, visibleModules);
    if (all.length === 0) return undefined;
    const diagnostics = withinOutput(all, maxOutputBytes);
    const first = diagnostics[0];
    // A check stopped by its limits says so in its own words, and has no line.
    const stopped = first?.code === (await import('./type-check.js')).TYPE_CHECK_STOPPED;
    return failed({
      name: 'TypeCheckError',
      code: 'TYPE_CHECK_FAILED',
      message: stopped
        ? `${first?.message}`
        : `the program has ${all.length} type error(s)${diagnostics.length < all.length ? ` (the first ${diagnostics.length} listed)` : ''}; first, line ${first?.line}: ${first?.message}`,
      ...(first === undefined || stopped ? {} : { line: first.line, column: first.column }),
      diagnostics,
    });
  };

  return {
    async run(code, runOptions) {
      if (closed) throw new SandboxError('SANDBOX_CLOSED', 'this sandbox was closed; create a new one with createSandbox()');
      validateRunOptions(code, runOptions);
      const limits = resolveRunLimits(options.limits, runOptions.limits);
      const started = performance.now();
      // The modules a "did you mean" may name: listed from the build folder once per run, if at all.
      let modules: readonly string[] | undefined;
      const visibleModules = (): readonly string[] => (modules ??= runOptions.visibleModules ?? listCapabilityModules(options.outDir));
      const failed = (error: RunError): RunResult => ({
        success: false,
        result: null,
        logs: [],
        error,
        timedOut: false,
        calls: 0,
        durationMs: performance.now() - started,
      });
      // From here to the executor's start nothing is awaited: an abort after this look reaches the executor.
      if (runOptions.signal?.aborted === true)
        return failed({ name: 'SandboxCancelledError', code: 'CANCELLED', message: 'the run was cancelled before it started' });

      // The check runs while the program starts: its calls and log lines wait for the verdict, and a
      // program that fails the check is stopped before any of them reaches the host.
      const verdict = runOptions.check === true ? typeCheckFailure(code, runOptions, visibleModules, failed, limits, started) : undefined;

      const program = compileProgram(code);
      if (!program.ok) return compileFailure(program.error, await verdict, failed);
      const request = { runId: runOptions.runId ?? randomUUID(), js: program.js, outDir: options.outDir, limits };
      if (verdict === undefined)
        return mapRunResult(await executor.execute(request, runOptions.onCall, executeOptionsOf(runOptions)), program, visibleModules);

      const held = holdUntilPassed(runOptions);
      try {
        const running = executor.execute(request, held.onCall, {
          signal: held.signal,
          onLog: held.onLog,
          ...(runOptions.engine === undefined ? {} : { engine: runOptions.engine }),
        });
        // Handled at once: a run that fails to start (closed, no worker) must not be an unhandled
        // rejection while the check is still going; it is awaited below all the same.
        running.catch(() => undefined);
        let failure: RunResult | undefined;
        try {
          failure = await verdict;
          if (failure === undefined) held.pass();
        } catch (error) {
          // The checker failed, or the host's onLog threw on a kept line: the run does not go on.
          held.stop();
          await running.catch(() => undefined);
          throw error;
        }
        if (failure !== undefined) {
          held.stop();
          await running.catch(() => undefined);
          return failure;
        }
        return mapRunResult(await running, program, visibleModules);
      } finally {
        held.dispose();
      }
    },
    async close() {
      closed = true;
      await executor.close();
    },
  };
}

/**
 * A program that does not compile: a syntax error is reported as one, checked or not (the checker
 * lists it among the type errors it causes, which it keeps as the diagnostics); for the rest (a
 * construct refused) a failed check says more.
 */
function compileFailure(error: RunError, checked: RunResult | undefined, failed: (error: RunError) => RunResult): RunResult {
  if (checked !== undefined && error.code !== 'SYNTAX_ERROR') return checked;
  const diagnostics = checked?.error?.diagnostics;
  return failed(diagnostics === undefined ? error : { ...error, diagnostics });
}

function executeOptionsOf(runOptions: RunOptions): ExecuteOptions {
  return {
    ...(runOptions.signal ? { signal: runOptions.signal } : {}),
    ...(runOptions.onLog ? { onLog: runOptions.onLog } : {}),
    ...(runOptions.engine === undefined ? {} : { engine: runOptions.engine }),
  };
}

/** Positions in a run's error mapped back to the model's TypeScript, and a "did you mean" for a missing module. */
function mapRunResult(result: RunResult, program: CompiledProgram, visibleModules: () => readonly string[]): RunResult {
  if (result.error !== undefined) result.error = mapRunError(result.error, program);
  if (result.error?.code === 'MODULE_NOT_FOUND') result.error.message = withModuleHint(result.error.message, visibleModules());
  return result;
}

/** TypeScript's "Cannot find module '@capabilities/…'" (TS2307) gets a "did you mean" among the modules the run may see. */
function withModuleHints(diagnostics: Diagnostic[], modules: () => readonly string[]): Diagnostic[] {
  return diagnostics.map((diagnostic) =>
    diagnostic.code === CANNOT_FIND_MODULE ? { ...diagnostic, message: withModuleHint(diagnostic.message, modules()) } : diagnostic,
  );
}

const CANNOT_FIND_MODULE = 2307;

/** Most diagnostics a failed run lists, and characters of each message (a message quotes the program). */
const MAX_RUN_DIAGNOSTICS = 50;
const MAX_DIAGNOSTIC_CHARS = 2_000;

/**
 * The first diagnostics, their messages cut, within half the run's output limit as JSON: the error of a
 * failed check is output like any other (20,000 one-line errors in a 0.5 MB program made a 2 MB error
 * past a 1 MiB limit). The first one is always kept.
 */
function withinOutput(diagnostics: Diagnostic[], maxOutputBytes: number): Diagnostic[] {
  const kept: Diagnostic[] = [];
  let bytes = 0;
  for (const diagnostic of diagnostics.slice(0, MAX_RUN_DIAGNOSTICS)) {
    const cut =
      diagnostic.message.length > MAX_DIAGNOSTIC_CHARS
        ? { ...diagnostic, message: `${diagnostic.message.slice(0, MAX_DIAGNOSTIC_CHARS)}… [cut]` }
        : diagnostic;
    bytes += Buffer.byteLength(JSON.stringify(cut), 'utf8');
    if (kept.length > 0 && bytes > maxOutputBytes / 2) break;
    kept.push(cut);
  }
  return kept;
}

/**
 * TypeScript suggests the closest name it knows ("… has no exported member named 'createTicke'. Did
 * you mean 'createTicket'?"); its declarations hold every function of a module, so a narrowed run's
 * diagnostics lose the suggestions that name a function the run may not call.
 */
function withoutHiddenSuggestions(diagnostics: Diagnostic[], hidden: readonly string[]): Diagnostic[] {
  if (hidden.length === 0) return diagnostics;
  const names = new Set(hidden);
  const dropHidden = (message: string): string => message.replace(SUGGESTION, (text, name: string) => (names.has(name) ? '' : text));
  return diagnostics.map((diagnostic) => ({ ...diagnostic, message: dropHidden(diagnostic.message) }));
}

const SUGGESTION = / ?Did you mean (?:to use )?'([^']+)'\?/g;

/** Checks what a host passes in; these are faults of the host, so they throw. */
export function validateSandboxOutDir(outDir: unknown): string {
  if (typeof outDir !== 'string' || outDir === '')
    throw new SandboxError(
      'INVALID_OPTIONS',
      'createSandbox() needs outDir: the folder of the compiled capabilities (e.g. ".agent-spaces")',
    );
  if (!existsSync(outDir))
    throw new SandboxError(
      'BUILD_OUTPUT_MISSING',
      `build output folder ${outDir} does not exist; run "agent-spaces build" first or pass the right outDir`,
    );
  return outDir;
}

function validateRunOptions(code: unknown, options: RunOptions | undefined): void {
  if (typeof code !== 'string') throw new SandboxError('INVALID_OPTIONS', `run() needs the program as a string (got ${typeof code})`);
  if (typeof options?.onCall !== 'function')
    throw new SandboxError('INVALID_OPTIONS', 'run() needs options.onCall: the host function that performs capability calls');
}

const PROGRAM_POSITION = new RegExp(`${PROGRAM_FILENAME.replace('.', '\\.')}:(\\d+):(\\d+)`, 'g');

/** Rewrites positions of the compiled JavaScript in an error to the model's TypeScript. */
function mapRunError(error: RunError, program: CompiledProgram): RunError {
  if (error.stack === undefined) return error;
  let first: { line: number; column: number } | undefined;
  const stack = error.stack.replace(PROGRAM_POSITION, (text, line: string, column: string) => {
    const source = program.toSource({ line: Number(line), column: Number(column) });
    if (source === undefined) return text;
    first ??= source;
    return `${PROGRAM_FILENAME}:${source.line}:${source.column}`;
  });
  const frames = stack.split('\n').filter((line) => /^\s+at /.test(line));
  // The stack's own first line, not name and message again: a stack never grows past what was counted.
  const head = stack.split('\n')[0] ?? '';
  const mapped: RunError = { ...error, stack: [head, ...frames].join('\n') };
  if (first !== undefined && error.line === undefined) {
    mapped.line = first.line;
    mapped.column = first.column;
  }
  return mapped;
}

/**
 * What a run started before its type-check's verdict hands the host: its calls and log lines wait in
 * one queue, in the order the program made them (each call with the run's wall clock held, as for an
 * approval: a first check loads TypeScript). `pass` hands them over in that order and lets later ones
 * straight through — a call the program made is performed as it would have been without the check,
 * unless the caller cancelled meanwhile. `stop` refuses the calls and drops the lines, and cancels the
 * run through `signal`. `dispose` forgets the caller's signal.
 */
function holdUntilPassed(runOptions: RunOptions): {
  onCall: CapabilityCallHandler;
  onLog: (log: RunLog) => void;
  signal: AbortSignal;
  pass(): void;
  stop(): void;
  dispose(): void;
} {
  type Held = { log: RunLog } | { call: () => void; refuse: () => void };
  let open = false;
  let queue: Held[] = [];
  const stopper = new AbortController();
  const forward = (): void => stopper.abort();
  runOptions.signal?.addEventListener('abort', forward, { once: true });
  if (runOptions.signal?.aborted === true) stopper.abort();
  const cancelled = (params: CapabilityCallParams, why: string): ToolCallError =>
    new ToolCallError('CANCELLED', why, { capability: params.capability, function: params.function });
  return {
    onCall(params, context) {
      // A caller that cancelled gets no new call, whether the verdict came before its abort or after.
      if (runOptions.signal?.aborted === true)
        return Promise.reject(cancelled(params, 'the run was cancelled; its call was not performed'));
      if (open) return runOptions.onCall(params, context);
      const resume = context.holdDeadline?.();
      return new Promise((resolve, reject) => {
        queue.push({
          call: () => {
            resume?.();
            if (runOptions.signal?.aborted === true)
              return reject(cancelled(params, 'the run was cancelled while its call waited for the type-check'));
            try {
              runOptions.onCall(params, context).then(resolve, reject);
            } catch (error) {
              reject(error);
            }
          },
          refuse: () => {
            resume?.();
            reject(cancelled(params, 'the program did not pass its type-check; the run was stopped'));
          },
        });
      });
    },
    onLog(log) {
      if (open) runOptions.onLog?.(log);
      else queue.push({ log });
    },
    signal: stopper.signal,
    pass() {
      open = true;
      const held = queue;
      queue = [];
      let next = 0;
      try {
        for (; next < held.length; next++) {
          const entry = held[next] as Held;
          if ('log' in entry) runOptions.onLog?.(entry.log);
          else entry.call();
        }
      } catch (error) {
        // The host's onLog threw: the calls after that line are refused (the run is being stopped).
        for (const entry of held.slice(next + 1)) if (!('log' in entry)) entry.refuse();
        throw error;
      }
    },
    stop() {
      const held = queue;
      queue = [];
      for (const entry of held) if (!('log' in entry)) entry.refuse();
      stopper.abort();
    },
    dispose: () => runOptions.signal?.removeEventListener('abort', forward),
  };
}
