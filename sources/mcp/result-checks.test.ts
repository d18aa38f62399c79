// What a program sees when a 2025-era MCP server answers against its own declarations: the bridge checks
// a result against the output schema the build recorded (the SDK's client does not check it a second time
// on the way, see connect.ts `toolCaller`), says whether the call may have changed something, and a result
// that is not a CallToolResult at all names its first problems.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';

const SERVER = fileURLToPath(new URL('./__fixtures__/raw-results-server.mjs', import.meta.url));

describe('results of a 2025-era MCP server that break its declarations', () => {
  let space: Space;
  beforeAll(async () => {
    const root = await makeTempDir('mcp-result-checks');
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({ capabilities: [], mcpServers: { raw: { command: process.execPath, args: [SERVER], protocol: '2025-11-25' } } }),
    );
    space = await createSpace({ cwd: root });
    expect((await space.build()).errors).toEqual([]);
  });
  afterAll(async () => {
    await space?.close();
  });

  /** The error a program catches from one call, or its result. */
  async function outcomeOf(call: string): Promise<unknown> {
    const run = await space.run(
      [
        "import * as raw from '@capabilities/mcp-raw';",
        `try { return { result: await raw.${call}({}) }; }`,
        'catch (error) { const { code, message } = error as { code: string; message: string }; return { code, message }; }',
      ].join('\n'),
      { check: false },
    );
    expect(run.success).toBe(true);
    return run.success ? run.result : undefined;
  }

  it('returns a structuredContent that matches the output schema', async () => {
    await expect(outcomeOf('good')).resolves.toEqual({ result: { n: 7 } });
  });

  it('refuses a structuredContent that breaks the output schema, saying the call was performed', async () => {
    const outcome = (await outcomeOf('count')) as { code: string; message: string };
    expect(outcome.code).toBe('INVALID_RESULT');
    expect(outcome.message).toMatch(/the call was performed/);
    expect(outcome.message).toMatch(/result\.n must be number \(got "seven"\)/);
  });

  it('refuses it from a read-only tool as a result that does not match', async () => {
    const outcome = (await outcomeOf('lookup')) as { code: string; message: string };
    expect(outcome.code).toBe('INVALID_RESULT');
    expect(outcome.message).toMatch(/returned a result that does not match its output schema: result\.n is required/);
  });

  it('names the first problems of a result that is not a CallToolResult', async () => {
    const outcome = (await outcomeOf('noContent')) as { code: string; message: string };
    expect(outcome.code).toBe('TOOL_FAILED');
    expect(outcome.message).toMatch(/^MCP server "raw" returned an invalid result for tool "no-content": content: /);
    expect(outcome.message).not.toMatch(/Invalid result for tools\/call/);
  });

  it('refuses what the 2025 protocol does not allow: a structuredContent that is not an object, another family of result', async () => {
    const listed = (await outcomeOf('listed')) as { code: string; message: string };
    expect(listed.code).toBe('TOOL_FAILED');
    expect(listed.message).toMatch(/invalid result for tool "listed": structuredContent: must be an object/);
    const tasky = (await outcomeOf('tasky')) as { code: string; message: string };
    expect(tasky.code).toBe('TOOL_FAILED');
    expect(tasky.message).toMatch(/invalid result for tool "tasky": content: content is required when the result carries 'task'/);
  });
});
