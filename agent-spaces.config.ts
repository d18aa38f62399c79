// The example space: the seed's capabilities with local data, the standard library, and one MCP
// server that this project ships, so `npm start` needs no network and no keys.
import { defineConfig } from 'agent-spaces';

export default defineConfig({
  capabilities: ['capabilities/*.ts', 'capabilities/*.json'],
  mcpServers: {
    stations: {
      command: 'node',
      args: ['--import', 'tsx', 'examples/mcp-server/stations-server.ts'],
      approveDestructive: true,
    },
  },
  // A Tools-mode agent: @capabilities/agent-station-guide (its calls need a model: OPENAI_API_KEY or
  // AGENT_SPACES_BASE_URL), and @capabilities/agents to list, run and remember agents.
  agents: ['examples/agents/station-guide'],
  outDir: '.agent-spaces',
  std: { fs: { root: '.agent-spaces/workspace' } },
});
