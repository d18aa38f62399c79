// The agents' capability source (kind `agent`) passes the capability source contract: a Tools-mode
// agent directory as @capabilities/agent-<name>, its calls running headless sessions on the scripted
// model over real HTTP.
import path from 'node:path';
import { resolveConfig } from '../config/index.js';
import { defineTool } from '../core/index.js';
import { describeSourceContract } from '../sources/source.contract.js';
import { startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { stationGuideModel } from './__fixtures__/station-guide-model.js';
import { createAgentSource } from './agent-source.js';
import { loadAgentCapabilities } from './load-agent-capabilities.js';

const GUIDE = path.join(path.dirname(new URL(import.meta.url).pathname), '__fixtures__/station-guide');

describeSourceContract('agents', async () => {
  const model = await startScriptedModelServer(stationGuideModel, { apiKey: 'test-key' });
  const env = { AGENT_TEST_MODEL_URL: model.baseURL, AGENT_TEST_MODEL_KEY: 'test-key' };
  const root = await makeTempDir('contract-agents');
  const agents = await loadAgentCapabilities([path.relative(root, GUIDE)], { root, env });
  return {
    config: resolveConfig({ capabilities: [] }, { root, env }),
    source: agents.source,
    call: {
      module: 'agent-station-guide',
      function: 'describeStation',
      args: { name: 'Harbor' },
      expected: 'Harbor: step-free',
      invalidArgs: { name: 5 },
    },
    // The model answers HTTP 400 for Atlantis: the session fails, and so does the call.
    failingCall: { module: 'agent-station-guide', function: 'describeStation', args: { name: 'Atlantis' }, code: 'TOOL_FAILED' },
    breakOneUnit: async () => {
      // The agent's definition with a misplaced key: its unit (the agent's directory) fails to load.
      const broken = defineTool({
        name: 'broken',
        functions: { run: { config: { requiresApproval: true }, handler: () => null } as never },
      });
      const tools = agents.tools.map((tool) => ({ ...tool, definition: broken }));
      return {
        label: agents.tools[0]?.source.kind === 'agent' ? agents.tools[0].source.path : '',
        source: createAgentSource({ tools, backends: agents.backends, problems: [] }),
      };
    },
    close: async () => {
      await agents.close();
      await model.close();
    },
  };
});
