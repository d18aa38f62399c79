import { defineConfig } from 'vitest/config';
import SlowFilesFirst from './test/support/slow-files-first.js';

export default defineConfig({
  // Vitest keeps each file's last duration here (its order starts the longest first): not under
  // node_modules/.vite, its default, which `npm ci` removes before every CI run.
  cacheDir: '.tmp/vite',
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', '**/.agent-spaces/**', '**/.tmp/**', 'bench/.peers/**'],
    // isolated-vm needs --no-node-snapshot in every process that creates an isolate. The example
    // space imports 'agent-spaces' (loaded by tsx, Node's resolver): the condition maps it to the sources.
    pool: 'forks',
    // What tests make under .tmp/ with makeTempDir goes into one folder per run, removed at its end.
    // And which code the CLI the tests start runs: the build when it is fresh (see dist-fresh.ts).
    globalSetup: ['test/support/test-run-temp.ts', 'test/support/dist-fresh.ts'],
    // Most files wait on child processes (the CLI, MCP servers, sandbox workers, a browser): three at a
    // time keep a 2-core machine busy (vitest's default there is one file at a time).
    maxWorkers: 3,
    // The longest files first, also without vitest's cache of durations: see slow-files-first.ts.
    sequence: { sequencer: SlowFilesFirst },
    execArgv: ['--no-node-snapshot', '--conditions=agent-spaces-source'],
    // Bounds for a test that hangs, not for speed: a busy 2-core machine (load 10-20) runs a CLI test
    // several times slower than an idle one, and no test may fail for that.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // expect.poll waits for an event, not for a time: on a busy machine it may take a while to come.
    expect: { poll: { timeout: 20_000 } },
  },
});
