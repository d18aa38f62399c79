import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./__fixtures__/exit-after-run.ts', import.meta.url));

/** A hang is forever: a generous limit tells it from a slow machine. */
const exitFrom = (where: string) =>
  execa(process.execPath, ['--no-node-snapshot', '--import', 'tsx', script, where], { reject: false, timeout: 90_000 });

describe('in-process isolation: process.exit ends the process', () => {
  it('from the continuation of a run', async () => {
    const result = await exitFrom('result');
    expect(result.timedOut).toBe(false);
    expect(result.stdout).toBe('exiting true 1');
    expect(result.exitCode).toBe(7);
  });

  it('from a timer while another run computes in a loop', async () => {
    const result = await exitFrom('busy');
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(7);
  });
});
