// `npm run bench`: runs every benchmark in this folder and prints one Markdown report.
// Each benchmark measures its baseline in the same run and reports ratios (see bench/README.md).
// Usage: npm run bench [-- <name> ...]   (names: compile, runtime, mcp, ...)
// `npm run bench -- peers [--reps N]` compares Agent Spaces with other code-mode libraries (bench/peers/);
// it installs them into bench/.peers/ on first use, so it is never part of the default run.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ALL = ['compile', 'build', 'bridge', 'runtime', 'mcp', 'mcp-sandbox', 'planner', 'agents'];
/** Known but run only when named. */
// durable needs PostgreSQL (it starts a private cluster) and starts worker processes.
// scale builds and serves 11,000 generated functions (issue 27).
// cli times the built package's commands (dist/, after `npm run build`) against `node -e 0` (issue 30).
const ON_REQUEST: Record<string, string> = { peers: './peers/index.ts', durable: './durable.ts', scale: './scale.ts', cli: './cli.ts' };
/** Options that take a value (so the value is not read as a benchmark name). */
const VALUE_OPTIONS = new Set(['--reps', '--only', '--systems']);
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(
    `npm run bench [-- <name> ...]   names: ${ALL.join(', ')}; on request only: ${Object.keys(ON_REQUEST).join(', ')}\n\n${(await import('./peers/index.js')).PEERS_USAGE}`,
  );
  process.exit(0);
}
const wanted = args.filter((arg, index) => !arg.startsWith('-') && !VALUE_OPTIONS.has(args[index - 1] ?? ''));
const names = wanted.length > 0 ? wanted : ALL;

const sections: string[] = [`# Agent Spaces benchmarks\n\nNode ${process.version}, ${new Date().toISOString()}\n`];
let failed = false;
for (const name of names) {
  const file = fileURLToPath(new URL(ON_REQUEST[name] ?? `./${name}.ts`, import.meta.url));
  if (!existsSync(file)) {
    if (wanted.length > 0) {
      const have = [...ALL.filter((n) => existsSync(fileURLToPath(new URL(`./${n}.ts`, import.meta.url)))), ...Object.keys(ON_REQUEST)];
      console.error(`bench: no benchmark named "${name}" (have: ${have.join(', ')})`);
      failed = true;
    }
    continue;
  }
  console.error(`bench: ${name} …`);
  const started = performance.now();
  try {
    const module = (await import(file)) as { run: () => Promise<string> };
    sections.push(await module.run());
    console.error(`bench: ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    failed = true;
    console.error(`bench: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
}
console.log(sections.join('\n'));
process.exitCode = failed ? 1 : 0;
