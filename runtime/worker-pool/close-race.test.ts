import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./__fixtures__/close-while-ready-queued.ts', import.meta.url));

describe('worker pool close', () => {
  it('waits for the workers it kills even when their ready messages arrive afterwards (no exit code 13)', async () => {
    const result = await execa(process.execPath, ['--no-node-snapshot', '--import', 'tsx', script], { reject: false, timeout: 90_000 });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('closed 0');
  });
});
