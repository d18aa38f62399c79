// executeTask from a script: a task in words, a structured result. Runs against a real model when
// OPENAI_API_KEY or AGENT_SPACES_BASE_URL is set (e.g. Ollama: AGENT_SPACES_BASE_URL=http://localhost:11434/v1
// AGENT_SPACES_MODEL=llama3.1); otherwise it says what to set. `--self-check` runs the same call against a
// scripted model server (no network) and checks the result.
//
//   node --no-node-snapshot --conditions=agent-spaces-source --import tsx examples/execute-task.ts ["<task>"] [--self-check]
import { fileURLToPath } from 'node:url';
import { executeTask, type TaskResult } from 'agent-spaces';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const TASK = 'Which trains leave Central before noon, and what is the weather at their destinations? Give the count and a short list.';

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--self-check')) return selfCheck();
  const task = argv.find((arg) => !arg.startsWith('--')) ?? TASK;
  if (!process.env.OPENAI_API_KEY && !process.env.AGENT_SPACES_BASE_URL) {
    console.log(
      'No model configured. Set OPENAI_API_KEY (OpenAI), or AGENT_SPACES_BASE_URL (+ AGENT_SPACES_MODEL) for any OpenAI-compatible server,',
    );
    console.log('e.g. AGENT_SPACES_BASE_URL=http://localhost:11434/v1 AGENT_SPACES_MODEL=llama3.1 for Ollama. Or run with --self-check.');
    return 0;
  }
  const result = await executeTask(task, {
    cwd: REPO,
    onEvent: (event) => {
      if (event.type === 'model-reply') console.error(`[step ${event.step}] $${event.usage.llmCostUsd.toFixed(4)} so far`);
    },
  });
  report(result);
  return result.success ? 0 : 1;
}

function report(result: TaskResult): void {
  console.log(result.finalSummary);
  const { steps, toolCalls, codeRuns, llmCostUsd } = result.budgetUsage;
  console.log(`(${steps} steps, ${toolCalls} tool calls, ${codeRuns} code runs, $${llmCostUsd.toFixed(4)}; trace in ${result.runDir})`);
}

/** The same call against a scripted model that searches, runs code and finishes. */
async function selfCheck(): Promise<number> {
  const { startScriptedModelServer, callReply } = await import('../test/support/scripted-model-server.js');
  const { makeExampleSpace } = await import('../test/support/example-space.js');
  const code = `import { trainSchedule } from '@capabilities/train-schedule';
import { getWeather } from '@capabilities/get-weather';
const morning = (await trainSchedule.getSchedule({ station: 'Central' })).filter((trip) => trip.hour < 12);
const places = [...new Set(morning.map((trip) => trip.destination))].sort();
const weather = await Promise.all(places.map((location) => getWeather({ location })));
console.log(\`\${morning.length} morning trains to \${places.length} places\`);
export default { trains: morning.length, weather: weather.map((w) => \`\${w.location}: \${w.temperature}°\`) };`;
  const server = await startScriptedModelServer([
    callReply('search_tools', { query: 'train schedule weather' }),
    callReply('run_code', { code }),
    callReply('finish', { summary: '5 trains leave Central before noon.', result: { trains: 5 } }),
  ]);
  const { root, env } = await makeExampleSpace('example-execute-task');
  Object.assign(process.env, env);
  try {
    const result = await executeTask(TASK, { cwd: root, model: { baseURL: server.baseURL, model: 'gpt-4.1-mini', apiKey: 'self-check' } });
    report(result);
    const run = result.rawOutputs.find((output) => output.kind === 'code-run');
    const value = run?.value as { trains?: number; weather?: string[] } | undefined;
    if (!result.success || value?.trains !== 5 || value.weather?.length !== 3)
      throw new Error(`self-check failed: ${JSON.stringify(result, null, 2)}`);
    console.log('self-check passed');
    return 0;
  } finally {
    await server.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
