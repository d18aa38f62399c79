// The durable commands' usage errors need no database: they are caught before any connection.
import { describe, expect, it } from 'vitest';
import { makeDurableSpace, startCli } from '../store/test-support/durable-space.js';

describe('durable commands without a usable store', () => {
  it('worker and approvals say where a store comes from; a store that is not PostgreSQL is refused', async () => {
    const space = await makeDurableSpace('durable-cli');
    const env = { AGENT_SPACES_STORE: '' };
    const worker = startCli(['worker'], { cwd: space.root, env });
    expect(await worker.exited).toBe(2);
    expect(worker.stderr()).toContain('worker needs a store: --store postgres://…, "store" in the config, or $AGENT_SPACES_STORE');

    const approvals = startCli(['approvals', 'list'], { cwd: space.root, env });
    expect(await approvals.exited).toBe(2);
    expect(approvals.stderr()).toContain('approvals live in a store');

    const run = startCli(['run', '-', '--store', 'mysql://user:hunter2@db/spaces'], { cwd: space.root, env });
    expect(await run.exited).toBe(2);
    expect(run.stderr()).toContain('the store must be a PostgreSQL URL');
    expect(run.stderr()).not.toContain('hunter2');
  });
});
