// Agent Spaces, through its public API only: the bench tools (`../as-tools.ts`, a defineTool file) and
// the MCP server are compiled by buildCapabilities; each run goes through createSandbox (default pooled
// worker isolation) with createBridge as its call handler, the way createSpace wires them — done by
// hand only to raise the bridge's 1 MiB result cap (W5a returns 5.7 MB; createSpace has no option for
// it). Runs on the repo's Node 20 with --no-node-snapshot, via tsx, from the repo's sources.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDriver } from './common.mjs';
import type * as ApiModule from '../../../index.js';
import type * as ToolsModule from '../as-tools.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MCP = { mcpEcho: 'echo', mcpWork: 'work' } as Record<string, string>;
const BIG = 64 * 1024 * 1024;

type Api = typeof ApiModule;
type Tools = typeof ToolsModule;

await serveDriver<{ api: Api; tools: Tools }>({
  async load() {
    const api = await import('../../../index.js');
    const tools = await import('../as-tools.js');
    return { api, tools };
  },
  async setup({ api, tools }, options) {
    const outDir = String(options.outDir);
    const useMcp = typeof options.mcpServer === 'string';
    const root = path.dirname(outDir);
    mkdirSync(root, { recursive: true }); // the MCP server is started with the space's root as its cwd
    const config = api.resolveConfig(
      {
        capabilities: [path.relative(root, path.join(here, '..', 'as-tools.ts'))],
        mcpServers: { bench: { command: process.execPath, args: [path.join(here, '..', 'mcp-echo-server.mjs')] } },
        outDir,
        std: { fs: { root: path.join(root, 'workspace') } },
      },
      { root, env: {} },
    );
    if (options.build) {
      const result = await api.buildCapabilities({ config });
      if (result.errors.length > 0) throw new Error(`Agent Spaces build failed: ${JSON.stringify(result.errors)}`);
    }
    const specs = await api.loadBuiltCapabilities(outDir);
    const mcpConfig = config.mcpServers.bench;
    const backends = {
      bench: api.createInProcessBackend({ bench: tools.bench }),
      ...(useMcp && mcpConfig ? { 'mcp-bench': api.createMcpBackend({ servers: { 'mcp-bench': { name: 'bench', config: mcpConfig } } }) } : {}),
    };
    const bridge = api.createBridge({ capabilities: specs, backends, maxResultBytes: BIG });
    const limits = { maxOutputBytes: BIG, maxCalls: 5000, timeoutMs: 120_000 };
    const sandbox = api.createSandbox({ outDir, isolation: 'worker', limits });
    return {
      info: `Agent Spaces (worker) on Node ${process.version}`,
      async run(body, uses, { check }) {
        const local = uses.filter((name) => !(name in MCP));
        const remote = uses.filter((name) => name in MCP);
        const imports = [
          local.length > 0 ? `import { ${local.join(', ')} } from '@capabilities/bench';\n` : '',
          remote.length > 0 ? `import { ${remote.map((name) => `${MCP[name]} as ${name}`).join(', ')} } from '@capabilities/mcp-bench';\n` : '',
        ].join('');
        const result = await sandbox.run(imports + body, { onCall: bridge.handle, check, limits });
        if (!result.success) throw new Error(`Agent Spaces run failed: ${JSON.stringify(result.error)}`);
        return result.result;
      },
      async close() {
        await Promise.all([sandbox.close(), bridge.close()]);
      },
    };
  },
});
