import type { RunResult } from '../core/run-result.js';
import { createSandbox } from './create-sandbox.js';
import type { Isolation, RunOptions } from './sandbox.js';

/**
 * Runs one program in a one-off sandbox (started and closed around the run). For many runs, keep a
 * sandbox from {@link createSandbox} instead: its workers stay warm.
 */
export async function runCode(code: string, options: RunOptions & { outDir: string; isolation?: Isolation }): Promise<RunResult> {
  const { outDir, isolation, ...runOptions } = options;
  const sandbox = createSandbox({ outDir, ...(isolation === undefined ? {} : { isolation }), workers: 1 });
  try {
    return await sandbox.run(code, runOptions);
  } finally {
    await sandbox.close();
  }
}
