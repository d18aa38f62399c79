#!/usr/bin/env node
// Re-exec with --no-node-snapshot (isolated-vm needs it wherever an isolate may be created),
// loading the TypeScript sources through tsx when no build is present.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}dist/cli/main.js`;
// tsx is resolved from this package, not from the folder the command runs in.
const args = existsSync(built)
  ? ['--no-node-snapshot', built]
  : ['--no-node-snapshot', '--import', import.meta.resolve('tsx'), `${root}cli/main.ts`];
const child = spawn(process.execPath, [...args, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
