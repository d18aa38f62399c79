import { defineCommand, pick } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'task',
  synopsis: ['agent-spaces task "<task>" [options]', 'agent-spaces task --replay <trace.jsonl>'],
  description:
    "give a task in words to the model (planner): it searches, calls tools and runs code within a budget;\nprogress on stderr, the summary on stdout. --replay re-runs a recorded task's model replies against the tools",
  options: [
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
  ],
  async run({ args: [first, ...rest], common, values }) {
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the task: agent-spaces task "<task>")`);
    const { parseBudgetOptions, taskCommand } = await import('./task.js');
    return taskCommand({
      ...common,
      ...(first !== undefined ? { task: first } : {}),
      budget: parseBudgetOptions(values),
      ...pick(values, ['trace', 'replay', 'approve', 'studio', 'model', 'context', 'store']),
      ...(values['base-url'] !== undefined ? { baseURL: values['base-url'] } : {}),
    });
  },
});
