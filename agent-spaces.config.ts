// The example space: the seed's capabilities with local data, the standard library, and one MCP
// server that this project ships, so `npm start` needs no network and no keys (the OpenAPI service below is
// built from a local spec and not called).
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
  // An OpenAPI service: a part of Open-Meteo's forecast API (no key) → @capabilities/openapi-weather.
  // Building reads only the local spec; calling getForecast needs the network, so the demo never does.
  openapi: {
    weather: { spec: 'examples/openapi/open-meteo.yaml', rateLimit: { requests: 10, period: 'minute' } },
  },
  // A TypeScript SDK: the functions of a local module → @capabilities/fares, typed from its own
  // declarations (docs/SDK.md); calls run on the host like any other capability.
  sdks: {
    fares: { module: './examples/sdk/fares' },
  },
  // A Tools-mode agent: @capabilities/agent-station-guide (its calls need a model: OPENAI_API_KEY or
  // AGENT_SPACES_BASE_URL), and @capabilities/agents to list, run and remember agents.
  agents: ['examples/agents/station-guide'],
  outDir: '.agent-spaces',
  std: { fs: { root: '.agent-spaces/workspace' } },
  // An npm package programs may import by its own name (`import { z } from 'zod'`), bundled into the
  // build (docs/MODULES.md); the project's own dependency, so the example installs nothing of its own.
  sandbox: { modules: ['zod'] },
});
