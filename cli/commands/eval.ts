import { EvalError, runEval, type Arm } from '../../eval/index.js';
import type { Budget } from '../../planner/index.js';
import { handleInterrupts } from '../interrupt.js';
import { UsageError } from '../usage-error.js';

export interface EvalCommandOptions {
  cwd: string;
  suite: string;
  arms?: string;
  model?: string;
  baseURL?: string;
  tasks?: string;
  repeat?: string;
  out?: string;
  resume: boolean;
  json: boolean;
  budget: Partial<Budget>;
}

/**
 * `agent-spaces eval <suite>`: runs the suite's tasks in each arm, progress on stderr, the report on
 * stdout (Markdown, or JSON with --json). Ctrl-C stops after cutting the current task short and writes
 * the reports of what finished; the finished tasks stay in the run folder for --resume (so do they
 * after SIGTERM or a second Ctrl-C, which end the command at once). Exit 0 when every task ran (with the oracle:
 * and passed, since an oracle failure is a bug of ours or of the suite), 1 when an oracle run failed,
 * 130 when interrupted.
 */
export async function evalCommand(options: EvalCommandOptions): Promise<number> {
  let repeat: number | undefined;
  if (options.repeat !== undefined) {
    repeat = Number(options.repeat);
    if (!Number.isInteger(repeat) || repeat < 1)
      throw new UsageError(`--repeat takes a whole number ≥ 1 (got "${options.repeat}")`, { command: 'eval' });
  }
  const arms = options.arms
    ?.split(',')
    .map((arm) => arm.trim())
    .filter(Boolean) as Arm[] | undefined;
  const controller = new AbortController();
  const stop = () => {
    process.stderr.write('agent-spaces eval: stopping (the current task is cut short; finished ones are kept)…\n');
    controller.abort(new Error('interrupted'));
  };
  // Ctrl-C is ours to answer while the eval runs (a second one, or SIGTERM, ends the command at once).
  const release = handleInterrupts();
  process.once('SIGINT', () => {
    stop();
    release();
  });
  try {
    const run = await runEval({
      suite: options.suite,
      cwd: options.cwd,
      ...(arms ? { arms } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
      ...(options.tasks !== undefined ? { tasks: options.tasks } : {}),
      ...(repeat !== undefined ? { repeat } : {}),
      ...(options.out ? { out: options.out } : {}),
      resume: options.resume,
      budget: options.budget,
      signal: controller.signal,
      // Control characters of a task's text are shown as '?' on the terminal.
      // eslint-disable-next-line no-control-regex
      onProgress: (line) => process.stderr.write(`${line.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '?')}\n`),
    });
    process.stdout.write(
      options.json
        ? `${JSON.stringify({ dir: run.dir, settings: run.settings, interrupted: run.interrupted, arms: run.report.arms, goals: run.report.goals, results: run.results }, null, 2)}\n`
        : run.report.markdown,
    );
    process.stderr.write(`agent-spaces eval: report in ${run.dir}/report.md and report.json\n`);
    if (run.interrupted) return 130;
    return run.settings.model === 'oracle' && run.results.some((result) => !result.success) ? 1 : 0;
  } catch (error) {
    if (error instanceof EvalError) throw new UsageError(error.message, { command: 'eval' });
    throw error;
  } finally {
    release();
  }
}
