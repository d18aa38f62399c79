#!/usr/bin/env node
// Re-exec with --no-node-snapshot (isolated-vm needs it wherever an isolate may be created).
// Which code runs: in a checkout of the repository (the TypeScript sources are here) always the
// sources, through tsx, so a stale dist/ never answers for them; `import … from 'agent-spaces'` in
// the example space then resolves to the sources too (the "agent-spaces-source" export condition).
// In an installed package (npm pack ships dist/, not the sources) the build in dist/.
// --help and --version create no isolate: they are answered in this process, without the second start.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}dist/cli/main.js`;
const sources = `${root}cli/main.ts`;
const fromSources = existsSync(sources);
const argv = process.argv.slice(2);

if (!fromSources && !existsSync(built)) {
  console.error(`agent-spaces: ${built} is missing: this copy of the package was not built (run \`npm run build\` in ${root}).`);
  process.exit(2);
}

if (answersItself(argv)) {
  let main;
  if (!fromSources) {
    ({ main } = await import(pathToFileURL(built).href));
  } else {
    // tsx is resolved from this package, not from the folder the command runs in.
    const { tsImport } = await import(import.meta.resolve('tsx/esm/api'));
    ({ main } = await tsImport(pathToFileURL(sources).href, import.meta.url));
  }
  process.exitCode = await main(argv);
} else {
  const args = fromSources
    ? ['--no-node-snapshot', '--conditions=agent-spaces-source', '--import', import.meta.resolve('tsx'), sources]
    : ['--no-node-snapshot', built];
  const child = spawn(process.execPath, [...args, ...argv], { stdio: 'inherit' });
  // Ctrl-C at a terminal reaches both processes, `kill <pid>` only this one: forwarded either way, the
  // CLI answers it itself ("interrupted", exit 130, 143 for SIGTERM, once however often it hears it).
  // Re-raising the signal here instead would meet this handler again, and end this process with 0.
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    // The CLI died of the signal before it could answer it (still starting, or killed outright).
    console.error(signal === 'SIGINT' || signal === 'SIGTERM' ? 'agent-spaces: interrupted' : `agent-spaces: stopped by ${signal}`);
    process.exit(128 + (constants.signals[signal] ?? 0));
  });
}

/**
 * Whether the command line only asks for help or the version (or for nothing, which prints the help):
 * a flag before any `--`, spelled out (a group such as -vh goes the long way, and is still answered).
 */
function answersItself(args) {
  const end = args.indexOf('--');
  const flags = end === -1 ? args : args.slice(0, end);
  return args.length === 0 || flags.some((arg) => arg === '--help' || arg === '-h' || arg === '--version');
}
