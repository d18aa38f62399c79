// A remote A2A agent listed in a space's config becomes @capabilities/agent-<name>: a real A2A server
// (serveA2A, the SDK's request handler over HTTP) answers the calls sandboxed code makes.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchTools, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { loadAgent } from '../load-agent.js';
import { openSpace } from '../open-space.js';
import { createAgentRunner, type AgentRunner } from '../run-agent.js';
import { serveA2A, type RunningA2AServer } from './serve-a2a.js';

describe('remote A2A agents in the config', () => {
  let server: RunningA2AServer;
  let runner: AgentRunner;
  let space: Space;
  let buildErrors: string[];

  beforeAll(async () => {
    const dir = await makeTempDir('a2a-remote');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Weather Desk',
          version: '1.2.0',
          description: 'Forecasts for the city',
          skills: [
            { id: 'forecast', name: 'Forecast', description: "Tomorrow's weather for a district", examples: ['Weather in Harbor?'] },
          ],
        },
      }),
    );
    // The remote agent's sessions are a plain function of the prompt: this is about the A2A path.
    runner = createAgentRunner(await loadAgent(dir), {
      outDir: path.join(dir, 'out'),
      executeTask: async (task) => ({ success: true, finalSummary: `forecast for "${task}": sunny` }),
    });
    server = await serveA2A([runner], { port: 0 });

    const root = await makeTempDir('a2a-space');
    const unreachable = 'http://127.0.0.1:9/';
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({ capabilities: [], agents: [server.agents[0]?.url, unreachable] }),
    );
    space = await openSpace({ cwd: root, isolation: 'in-process' });
    const build = await space.build();
    buildErrors = build.errors.map((error) => error.message);
  }, 120_000);

  afterAll(async () => {
    await space?.close();
    await server?.close();
    await runner?.close();
  });

  it('builds @capabilities/agent-<card name> with sendMessage, its skills in the description; an agent that does not answer is a build error', async () => {
    const spec = (await space.capabilities()).find((capability) => capability.module === 'agent-weather-desk');
    expect(spec?.functions.map((fn) => fn.name)).toEqual(['sendMessage']);
    expect(spec?.source).toEqual({ kind: 'agent', path: server.agents[0]?.url });
    expect(spec?.functions[0]?.description).toContain('- Forecast: Tomorrow\'s weather for a district (e.g. "Weather in Harbor?")');
    expect(searchTools(await space.catalog(), 'forecast weather', { detailLevel: 'names' }).matches[0]?.id).toBe(
      'agent-weather-desk.sendMessage',
    );
    expect(buildErrors).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/: the A2A agent did not answer/)]);
  });

  it('code sends it messages and continues a conversation by contextId', async () => {
    const result = await space.run(`
import { sendMessage } from '@capabilities/agent-weather-desk';
const first = await sendMessage({ message: 'Weather in Harbor?' });
const second = await sendMessage({ message: 'And Museum?', contextId: first.contextId });
export default { first: first.text, second: second.text, same: first.contextId === second.contextId && first.contextId !== '' };
`);
    expect(result.error).toBeUndefined();
    expect(result.result).toEqual({
      first: 'forecast for "Weather in Harbor?": sunny',
      second: 'forecast for "And Museum?": sunny',
      same: true,
    });
  }, 120_000);

  it('a wrong argument is refused by the bridge before any message is sent', async () => {
    const result = await space.run(`
import { sendMessage } from '@capabilities/agent-weather-desk';
export default await sendMessage({ text: 'hi' } as never).catch((error: { code: string }) => error.code);
`);
    expect(result.result).toBe('INVALID_ARGUMENTS');
  }, 120_000);
});
