import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'eval',
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
  async run({ args: [first, ...rest], cwd, values }) {
    if (!first) throw new UsageError('eval needs a suite: agent-spaces eval <suite> (bundled: tau2-retail; or a folder holding suite.ts)');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (eval takes one suite)`);
    const { parseBudgetOptions } = await import('./task.js');
    const { evalCommand } = await import('./eval.js');
    return evalCommand({
      cwd,
      suite: first,
      json: values.json === true,
      resume: values.resume === true,
      budget: parseBudgetOptions(values),
      ...pick(values, ['arms', 'model', 'tasks', 'repeat', 'out']),
      ...(values['base-url'] !== undefined ? { baseURL: values['base-url'] } : {}),
    });
  },
});
