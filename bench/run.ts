// `npm run bench`: runs every benchmark in this folder and prints one Markdown report.
// Each benchmark measures its baseline in the same run and reports ratios (see bench/README.md).
// Usage: npm run bench [-- <name> ...]   (names: compile, runtime, mcp, ...)
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ALL = ['compile', 'build', 'bridge', 'runtime', 'mcp', 'mcp-sandbox', 'planner', 'agents'];
const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const names = wanted.length > 0 ? wanted : ALL;

const sections: string[] = [`# Agent Spaces benchmarks\n\nNode ${process.version}, ${new Date().toISOString()}\n`];
let failed = false;
for (const name of names) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  if (!existsSync(file)) {
    if (wanted.length > 0) {
      console.error(`bench: no benchmark named "${name}" (have: ${ALL.filter((n) => existsSync(fileURLToPath(new URL(`./${n}.ts`, import.meta.url)))).join(', ')})`);
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
