/**
 * Vitest's global setup: one folder under `.tmp/` for everything this test run makes with
 * `makeTempDir` (temp-dir.ts), removed when the run ends — also what a test that failed half-way
 * did not clean. Each run has its own, so two runs at once never remove each other's files.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_RUN_TEMP_ENV } from './temp-dir.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

export default function setup(): () => void {
  const folder = path.join(REPO, '.tmp', `test-run-${process.pid}-${Date.now().toString(36)}`);
  mkdirSync(folder, { recursive: true });
  // Test files run in child processes started after this: they inherit it.
  process.env[TEST_RUN_TEMP_ENV] = folder;
  return () => rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}
