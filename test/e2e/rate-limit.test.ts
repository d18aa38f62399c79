import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../core/index.js';
import { loadConfig } from '../../config/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../support/temp-dir.js';

const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');

/** A space whose only MCP server is the published `everything` server, rate-limited as `rateLimit` says. */
async function spaceWithLimit(name: string, rateLimit: Record<string, unknown>): Promise<Space> {
  const root = await makeTempDir(name);
  const config = { capabilities: [], mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'], rateLimit } } };
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify(config));
  const space = await createSpace({ cwd: root });
  const build = await space.build();
  expect(build.errors).toEqual([]);
  return space;
}

// Three calls at once against two a minute: with "fail" the third is refused; with "queue" and a short
// period all three complete (the third after its slot frees). Outcomes, not durations, are asserted.
describe('mcpServers.<name>.rateLimit covers every tool of the server', () => {
  let failing: Space;
  let queueing: Space;

  beforeAll(async () => {
    [failing, queueing] = await Promise.all([
      spaceWithLimit('rate-fail', { requests: 2, period: 'minute' }),
      spaceWithLimit('rate-queue', { requests: 2, period: 'second', onLimit: 'queue', maxWaitMs: 60_000 }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([failing?.close(), queueing?.close()]);
  });

  it('the built module carries the limit', async () => {
    const [spec] = (await failing.capabilities()).filter((capability) => capability.module === 'mcp-everything');
    expect(spec?.config).toEqual({ rateLimit: { requests: 2, period: 'minute' } });
  });

  it("fails the call past the limit at once, whichever of the server's tools it is", async () => {
    const result = await failing.run(`
import { echo, getSum } from '@capabilities/mcp-everything';
const outcomes = await Promise.allSettled([echo({ message: 'a' }), getSum({ a: 1, b: 2 }), echo({ message: 'c' })]);
export default outcomes.map((outcome) => outcome.status === 'fulfilled' ? 'ok' : (outcome.reason as { code: string }).code);
`);
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual(['ok', 'ok', 'RATE_LIMITED']);
  }, 120_000);

  it('with onLimit "queue" the call past the limit waits for its slot and succeeds', async () => {
    const result = await queueing.run(`
import { echo, getSum } from '@capabilities/mcp-everything';
export default await Promise.all([echo({ message: 'a' }), getSum({ a: 1, b: 2 }), echo({ message: 'c' })]);
`);
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual(['Echo: a', 'The sum of 1 and 2 is 3.', 'Echo: c']);
  }, 120_000);

  it('a run that times out while its call waits fails with the timeout, and the line is free for the next run', async () => {
    // One slot a minute: the first call takes it, the second waits far longer than the run may last.
    const root = await makeTempDir('rate-timeout');
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({
        capabilities: [],
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [everything, 'stdio'],
            rateLimit: { requests: 1, period: 'minute', onLimit: 'queue', maxWaitMs: 120_000, maxQueue: 1 },
          },
        },
      }),
    );
    const space = await createSpace({ cwd: root });
    try {
      const timedOut = await space.run(
        `
import { echo } from '@capabilities/mcp-everything';
await echo({ message: 'first' });
export default await echo({ message: 'second' });
`,
        { limits: { timeoutMs: 3_000 } },
      );
      expect(timedOut.success).toBe(false);
      expect(timedOut.timedOut).toBe(true);
      // Had the waiting call stayed in line, this one would find it full (maxQueue 1) and fail at once;
      // instead it waits (until its own run ends).
      const next = await space.run(
        `
import { echo } from '@capabilities/mcp-everything';
export default await echo({ message: 'third' }).catch((error: { code: string; message: string }) => error.message);
`,
        { limits: { timeoutMs: 3_000 } },
      );
      expect(next.timedOut).toBe(true);
    } finally {
      await space.close();
    }
  }, 120_000);
});

describe('the rateLimit config is checked where it enters', () => {
  it("names a bad field of a server's rateLimit with its path", async () => {
    const root = await makeTempDir('rate-config');
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({ mcpServers: { everything: { command: 'node', rateLimit: { requests: 2, period: 'week', onLimit: 'wait' } } } }),
    );
    const error = await loadConfig({ cwd: root }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/mcpServers\.everything\.rateLimit\.period/);
    expect((error as Error).message).toMatch(/mcpServers\.everything\.rateLimit\.onLimit/);
  });
});
