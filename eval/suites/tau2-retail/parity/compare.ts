// Compares the port (../retail-db.ts) with τ²'s Python tools: every task's ground-truth calls must
// succeed or fail alike and leave equal databases. Run after run_tau2.py (see README.md):
//   node --conditions=agent-spaces-source --import tsx eval/suites/tau2-retail/parity/compare.ts <tau2.json>
import { readFileSync } from 'node:fs';
import suite, { canonicalJson } from '../suite.js';
import { RETAIL_TOOLS, type RetailDb } from '../retail-db.js';

const file = process.argv[2];
if (!file) throw new Error('usage: compare.ts <the JSON run_tau2.py wrote>');
const python = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { calls: string[]; db: unknown }>;
const dropNull = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_key, inner: unknown) => (inner === null ? undefined : inner)));
const dbText = readFileSync(new URL('../data/db.json', import.meta.url), 'utf8');
let differences = 0;
for (const task of suite.tasks) {
  const db = JSON.parse(dbText) as RetailDb;
  const calls = task.calls.map((call) => {
    try {
      RETAIL_TOOLS[call.name]?.(db, call.arguments);
      return 'ok';
    } catch (error) {
      return `error: ${(error as Error).message}`;
    }
  });
  const theirs = python[task.id];
  if (!theirs) throw new Error(`task ${task.id} is missing from ${file}`);
  if (JSON.stringify(calls) !== JSON.stringify(theirs.calls)) {
    differences++;
    console.log(`task ${task.id}: calls differ`, calls, theirs.calls);
  }
  if (canonicalJson(dropNull(db)) !== canonicalJson(theirs.db)) {
    differences++;
    console.log(`task ${task.id}: final databases differ`);
  }
}
console.log(`${suite.tasks.length} tasks compared, ${differences} differences`);
process.exitCode = differences === 0 ? 0 : 1;
