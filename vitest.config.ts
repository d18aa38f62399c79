import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', '**/.agent-spaces/**', '**/.tmp/**', 'bench/.peers/**'],
    // isolated-vm needs --no-node-snapshot in every process that creates an isolate. The example
    // space imports 'agent-spaces' (loaded by tsx, Node's resolver): the condition maps it to the sources.
    pool: 'forks',
    // What tests make under .tmp/ with makeTempDir goes into one folder per run, removed at its end.
    globalSetup: ['test/support/test-run-temp.ts'],
    // Most files wait on child processes (the CLI, MCP servers, sandbox workers, a browser): three at a
    // time keep a 2-core machine busy (vitest's default there is one file at a time).
    maxWorkers: 3,
    execArgv: ['--no-node-snapshot', '--conditions=agent-spaces-source'],
    // Bounds for a test that hangs, not for speed: a busy 2-core machine (load 10-20) runs a CLI test
    // several times slower than an idle one, and no test may fail for that.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // expect.poll waits for an event, not for a time: on a busy machine it may take a while to come.
    expect: { poll: { timeout: 20_000 } },
  },
});
