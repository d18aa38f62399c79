import { describe, expect, it } from 'vitest';
import { createSandbox } from '../create-sandbox.js';
import { describeSandboxContract, FIXTURE_OUT_DIR } from '../sandbox.contract.js';

describeSandboxContract('worker pool', async () => {
  const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 2 });
  await sandbox.ready();
  return sandbox;
});

describe('worker pool lifecycle', () => {
  it('kills every worker on close', async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 2 });
    await sandbox.ready();
    const pids = sandbox.pids();
    expect(pids).toHaveLength(2);
    await sandbox.close();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    await expect(sandbox.run('return 1', { onCall: async () => null })).rejects.toThrow(/closed/);
  });
  it('refuses a missing build folder', () => {
    expect(() => createSandbox({ outDir: '/nonexistent/agent-spaces-build' })).toThrow(/does not exist/);
  });
});
