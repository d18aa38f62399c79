#!/usr/bin/env node
// Which code runs: in a checkout of the repository (the TypeScript sources are here) always the
// sources, through tsx, so a stale dist/ never answers for them; `import … from 'agent-spaces'` in
// the example space then resolves to the sources too (the "agent-spaces-source" export condition).
// In an installed package (npm pack ships dist/, not the sources) the build in dist/: what runs in this
// process from its bundle, dist/cli/bundle/ (scripts/bundle-cli.mjs: a few files instead of ~300 for
// Node's module loader), or from dist/cli/ when a build has no bundle.
// Where Node runs it: isolated-vm needs --no-node-snapshot wherever an isolate is made IN this process.
// --help and --version create none, and neither does `run` when its isolates live in a sandbox worker
// process (the default; the worker is always started with the flag): those are answered in this
// process. `run` decides where its isolates go before it loads the engine (its config and
// --isolation/--engine), and only when they would be made here starts Node again with the flag
// (`relaunch` below). Every other command (servers, the studio, workers, agents, eval: long-lived,
// and may be placed in-process) starts Node again with the flag at once, as do the sources.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { constants } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}dist/cli/main.js`;
const sources = `${root}cli/main.ts`;
// AGENT_SPACES_FROM_DIST=1 runs a checkout's build instead (what an installed package runs, at about a
// third of the CPU of tsx over the sources): the test runs set it when dist/ is newer than every file of
// the checkout (test/support/dist-fresh.ts), as in CI, where `npm ci` has just built it.
const fromSources = existsSync(sources) && process.env.AGENT_SPACES_FROM_DIST !== '1';
const bundle = `${root}dist/cli/bundle/`;
const bundled = !fromSources && existsSync(`${bundle}main.js`) && existsSync(`${bundle}index.js`);
// A TypeScript capability's `import … from 'agent-spaces'` gets the bundle's copy of the library, which
// shares its modules with the CLI's, not dist/index.js, a second copy (config/load-config.ts, hostInstanceOf).
if (bundled)
  globalThis[Symbol.for('agent-spaces.cli-bundle')] = {
    entry: realpathSync(`${root}dist/index.js`),
    index: realpathSync(`${bundle}index.js`),
  };
const argv = process.argv.slice(2);
const FLAG = '--no-node-snapshot';

if (!fromSources && !existsSync(built)) {
  console.error(`agent-spaces: ${built} is missing: this copy of the package was not built (run \`npm run build\` in ${root}).`);
  process.exit(2);
}

let daemonCode;
if (answersItself(argv)) {
  process.exitCode = await (await loadMain())(argv);
} else if (!fromSources && argv[0] === 'run' && process.execArgv.length === 0 && (daemonCode = await throughDaemon()) !== undefined) {
  process.exitCode = daemonCode;
} else if (!fromSources && argv[0] === 'run' && !process.execArgv.includes(FLAG)) {
  // Ctrl-C while the modules load is answered as the command answers it ("interrupted", 130).
  (await import(pathToFileURL(bundled ? `${bundle}interrupt.js` : `${root}dist/cli/interrupt.js`).href)).exitOnInterrupt();
  process.exitCode = await (await loadMain())(argv, { relaunch });
} else {
  await relaunch();
}

/**
 * `run` in a warm process of the user's daemon (`agent-spaces daemon start`, dist/cli/daemon/) when one
 * listens for this Node, this install and this start-up environment: its exit code, or undefined (none
 * listening, or it did not take the command) and the command runs here as always.
 */
async function throughDaemon() {
  let socket;
  try {
    const { usableDaemonSocket } = await import(pathToFileURL(`${root}dist/cli/daemon/socket.js`).href);
    socket = usableDaemonSocket(root);
  } catch {
    // A build without the daemon's modules: the command runs here.
    return undefined;
  }
  if (socket === undefined) return undefined;
  return (await import(pathToFileURL(`${root}dist/cli/daemon/client.js`).href)).runThroughDaemon(socket, argv);
}

async function loadMain() {
  // The bundle's main and interrupt share one instance of the interrupt state (one chunk).
  if (!fromSources) return (await import(pathToFileURL(bundled ? `${bundle}main.js` : built).href)).main;
  // tsx is resolved from this package, not from the folder the command runs in.
  const { tsImport } = await import(import.meta.resolve('tsx/esm/api'));
  return (await tsImport(pathToFileURL(sources).href, import.meta.url)).main;
}

/** Runs the command in a new Node started with --no-node-snapshot; ends this process as that one ends. */
function relaunch() {
  const args = fromSources ? [FLAG, '--conditions=agent-spaces-source', '--import', import.meta.resolve('tsx'), sources] : [FLAG, built];
  const child = spawn(process.execPath, [...args, ...argv], { stdio: 'inherit' });
  // Ctrl-C at a terminal reaches both processes, `kill <pid>` only this one: forwarded either way, the
  // CLI answers it itself ("interrupted", exit 130, 143 for SIGTERM, once however often it hears it).
  // Re-raising the signal here instead would meet this handler again, and end this process with 0.
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  return new Promise(() => {
    child.on('exit', (code, signal) => {
      if (signal === null) process.exit(code ?? 1);
      // The CLI died of the signal before it could answer it (still starting, or killed outright).
      console.error(signal === 'SIGINT' || signal === 'SIGTERM' ? 'agent-spaces: interrupted' : `agent-spaces: stopped by ${signal}`);
      process.exit(128 + (constants.signals[signal] ?? 0));
    });
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
