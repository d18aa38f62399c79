// The in-process call path, for a CPU profile: `space.run` of a program making N sequential awaited calls
// to a trivial defineTool tool (the bench's `echo`), isolation 'in-process', on the engine named. Prints
// wall and process CPU (all threads) per call, each minus a trivial run's. Runs in the bench's user project
// (it needs the built package and as-tools.mjs beside it), so after `npm run bench -- peers` built it:
//   cp bench/peers/profile-in-process.mjs bench/.peers/agent-spaces/ && cd bench/.peers/agent-spaces
//   node --no-node-snapshot [--cpu-prof --cpu-prof-dir=/tmp/prof] profile-in-process.mjs isolated-vm|quickjs [calls] [runs] [echo|chunk]
// `chunk` makes W5b's calls instead (each returns ~50 KB; the program counts the rows).
/* global process, performance, console */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSpace, resolveConfig } from 'agent-spaces';
import { CHUNK_ROWS } from './data.mjs';

const [engine = 'isolated-vm', callsText = '2000', runsText = '5', workload = 'echo'] = process.argv.slice(2);
const calls = Number(callsText);
const runs = Number(runsText);
if (engine !== 'isolated-vm' && engine !== 'quickjs')
  throw new Error(`profile-in-process: the engine is isolated-vm or quickjs (got ${JSON.stringify(engine)})`);
if (!Number.isInteger(calls) || calls < 1 || !Number.isInteger(runs) || runs < 1)
  throw new Error(`profile-in-process: calls and runs are positive integers (got ${callsText}, ${runsText})`);
if (workload !== 'echo' && workload !== 'chunk')
  throw new Error(`profile-in-process: the workload is echo or chunk (got ${JSON.stringify(workload)})`);

const root = path.dirname(fileURLToPath(import.meta.url));
const config = resolveConfig(
  {
    capabilities: ['as-tools.mjs'],
    outDir: path.join(root, 'profile-build'),
    std: { fs: { root: path.join(root, 'workspace') } },
    sandbox: { isolation: 'in-process', engine, maxCalls: calls + 10, timeoutMs: 600_000 },
  },
  { root, env: {} },
);
const space = await createSpace({ config });
await space.build();
const program =
  workload === 'echo'
    ? `import { echo } from '@capabilities/bench';\nlet ok = 0;\nfor (let i = 0; i < ${calls}; i++) {\n  const r = await echo({ text: 'm' + i });\n  if (r.text === 'm' + i) ok++;\n}\nexport default ok;`
    : `import { chunk } from '@capabilities/bench';\nlet rows = 0;\nfor (let i = 0; i < ${calls}; i++) {\n  const part = await chunk({ i });\n  if (part.i === i) rows += part.items.length;\n}\nexport default rows;`;
const expected = workload === 'echo' ? calls : calls * CHUNK_ROWS;
const trivial = 'export default 42;';

/** One run: wall ms, process CPU ms (every thread: the isolate's too), and its result. */
async function time(code) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await space.run(code, { check: false });
  if (!result.success) throw new Error(`profile-in-process: the run failed: ${JSON.stringify(result.error)}`);
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000, value: result.result };
}

await time(program); // warm-up
await time(trivial);
const wall = [];
const cpu = [];
for (let run = 0; run < runs; run++) {
  const base = await time(trivial);
  const measured = await time(program);
  if (measured.value !== expected)
    throw new Error(`profile-in-process: wrong result ${JSON.stringify(measured.value)} (expected ${expected})`);
  wall.push(((measured.wall - base.wall) * 1000) / calls);
  cpu.push(((measured.cpu - base.cpu) * 1000) / calls);
}
const line = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted.map((value) => value.toFixed(1)).join(' ')} µs/call, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)}`;
};
console.log(`${engine} in-process, ${calls} sequential ${workload} calls × ${runs} runs: wall ${line(wall)}; process CPU ${line(cpu)}`);
await space.close();
