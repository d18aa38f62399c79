import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callReply, startScriptedModelServer, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { stationGuideModel } from './__fixtures__/station-guide-model.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { loadAgent } from './load-agent.js';
import { createAgentRunner, type AgentRunner } from './run-agent.js';

const GUIDE = new URL('./__fixtures__/station-guide', import.meta.url).pathname;

describe('agent sessions', () => {
  let model: ScriptedModelServer;
  let runner: AgentRunner;
  beforeAll(async () => {
    model = await startScriptedModelServer(stationGuideModel, { apiKey: 'test-key' });
    const agent = await loadAgent(GUIDE);
    runner = createAgentRunner(agent, {
      outDir: path.join(await makeTempDir('agent-run'), 'out'),
      env: { AGENT_TEST_MODEL_URL: model.baseURL, AGENT_TEST_MODEL_KEY: 'test-key' },
    });
  });
  afterAll(async () => {
    await runner?.close();
    await model?.close();
  });

  it('runs a tool call as a headless session with the agent prompt, rules, references and its own MCP tools', async () => {
    const answer = await runner.callTool('describe_station', { name: 'Harbor' });
    expect(answer.text).toBe('Harbor: step-free');
    const requests = model.chatRequests();
    const first = requests.find((r) => JSON.stringify(r.messages).includes('about Harbor station'));
    const system = String(first?.messages[0]?.content);
    expect(system).toContain('You are the Station Guide of the city rail network.');
    expect(system).toContain('Always say whether the station is step-free.');
    expect(system).toContain('IC = intercity');
    expect(first?.model).toBe('scripted-model');
    expect(JSON.stringify(first?.messages)).toContain(
      'Tell a traveller about Harbor station; they need: general information. (Answer as tool describe_station.)',
    );
  });
});

describe('what a headless session may use', () => {
  it("offers only the agent's own tools that need no approval", async () => {
    // A model that tries the destructive report_delay (approval required), then reports what it got.
    const model = await startScriptedModelServer((request) => {
      const last = request.messages.at(-1);
      if (last?.role === 'tool')
        return callReply('finish', { summary: typeof last.content === 'string' ? last.content : JSON.stringify(last.content) });
      const searched = request.messages.some((m) => m.role === 'tool');
      return searched
        ? callReply('finish', { summary: 'unreachable' })
        : callReply('call_tool', { name: 'mcp-stations.reportDelay', arguments: { station: 'Harbor', minutes: 5 } });
    });
    const runner = createAgentRunner(await loadAgent(GUIDE), {
      outDir: path.join(await makeTempDir('agent-allow'), 'out'),
      env: { AGENT_TEST_MODEL_URL: model.baseURL, AGENT_TEST_MODEL_KEY: 'k' },
    });
    try {
      const answer = await runner.callTool('describe_station', { name: 'Harbor' });
      expect(answer.text).not.toContain('Delay of 5 min reported');
      // Only the agent's stations tools that need no approval; no std-* modules either.
      expect(answer.text).toContain(
        'there is no tool \\"mcp-stations.reportDelay\\" available to this task; did you mean mcp-stations.listStations, mcp-stations.stationInfo?',
      );
    } finally {
      await runner.close();
      await model.close();
    }
  });
});
