// Compares the TypeScript port with BFCL's Python classes on the suite's ground truth: every call's
// result (random draws and message ids included) and every task's final state. Usage (from the repository root):
//   python3 eval/suites/bfcl-multi-turn/parity/run_bfcl.py <gorilla>/berkeley-function-call-leaderboard > /tmp/bfcl.json
//   npx tsx eval/suites/bfcl-multi-turn/parity/compare.ts /tmp/bfcl.json
import { readFileSync } from 'node:fs';
import { loadSuite } from '../../../suite.js';
import { BfclWorld } from '../bfcl-world.js';
import { canonicalJson } from '../suite.js';

interface PythonRun {
  results: unknown[];
  state: Record<string, unknown>;
}

const python = JSON.parse(readFileSync(process.argv[2] ?? '/tmp/bfcl.json', 'utf8')) as Record<string, PythonRun>;
const suite = await loadSuite('eval/suites/bfcl-multi-turn');
const differences: string[] = [];
for (const task of suite.tasks) {
  const expected = python[task.id];
  if (!expected) {
    differences.push(`${task.id}: not in the Python run`);
    continue;
  }
  const { question } = task as unknown as {
    question: { initial_config: Record<string, Record<string, unknown>>; involved_classes: string[] };
  };
  const world = new BfclWorld(task.id, question.initial_config, question.involved_classes);
  task.calls.forEach((call, index) => {
    let result: unknown;
    try {
      result = world.call(call.name, call.arguments);
    } catch (error) {
      result = { exception: (error as Error).message };
    }
    if (canonicalJson(result) !== canonicalJson(expected.results[index]))
      differences.push(`${task.id}/${index} ${call.name}: ${canonicalJson(result)} ≠ ${canonicalJson(expected.results[index])}`);
  });
  if (canonicalJson(world.state()) !== canonicalJson(expected.state)) differences.push(`${task.id}: final state differs`);
}
console.log(`${suite.tasks.length} tasks, ${suite.tasks.reduce((n, t) => n + t.calls.length, 0)} calls: ${differences.length} differences`);
for (const line of differences) console.log(`  ${line}`);
process.exitCode = differences.length > 0 ? 1 : 0;
