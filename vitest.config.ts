import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'dist/**', '**/.agent-spaces/**', '**/.tmp/**', 'bench/.peers/**'],
    // isolated-vm needs --no-node-snapshot in every process that creates an isolate.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
