// Agent Spaces the way a user who installed the package runs it: plain JavaScript on Node 20 with
// --no-node-snapshot, no TypeScript loader. `options.project` is the bench's user project in the cache
// (install.ts, buildAgentSpaces): `agent-spaces` there is the package built from this repo's sources by
// tsc (its dist/, as `npm run build` makes it), and `as-tools.mjs` the user's defineTool file. Through
// the public API only: the tools and the MCP server are compiled by buildCapabilities; each run goes
// through createSandbox (default pooled worker isolation) with the bridge's handleEncoded as its call
// handler (a result serialized once), the way createSpace wires them — done by hand only to raise the
// bridge's 1 MiB result cap (W5a returns 5.7 MB; createSpace has no option for it).
/* global process, URL */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importFrom, serveDriver } from './common.mjs';

const MCP_SERVER = fileURLToPath(new URL('../mcp-echo-server.mjs', import.meta.url));
const MCP = { mcpEcho: 'echo', mcpWork: 'work' };
const BIG = 64 * 1024 * 1024;
const TOOLS_FILE = 'as-tools.mjs';

await serveDriver({
  async load(options) {
    const project = String(options.project);
    const api = await importFrom(project, 'agent-spaces');
    const tools = await import(pathToFileURL(path.join(project, TOOLS_FILE)).href);
    return { api, tools };
  },
  async setup({ api, tools }, options) {
    const root = String(options.project);
    const outDir = path.join(root, 'build');
    const useMcp = typeof options.mcpServer === 'string';
    mkdirSync(root, { recursive: true }); // the MCP server is started with the space's root as its cwd
    const config = api.resolveConfig(
      {
        capabilities: [TOOLS_FILE],
        // The server runs on the Node the orchestrator names, the same for every system.
        mcpServers: { bench: { command: typeof options.mcpNode === 'string' ? options.mcpNode : process.execPath, args: [MCP_SERVER] } },
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
    // The MCP backend: through the MCP source's connect (what createSpace does) since 199ed30, which took
    // the client internals (createMcpBackend) out of the package root; createMcpBackend on older commits.
    const mcpBackend = async () =>
      api.createMcpBackend
        ? api.createMcpBackend({ servers: { 'mcp-bench': { name: 'bench', config: mcpConfig } } })
        : api.createMcpSource().connect(
            specs.filter((spec) => spec.source?.kind === 'mcp'),
            { config },
          );
    const backends = {
      bench: api.createInProcessBackend({ bench: tools.bench }),
      ...(useMcp && mcpConfig ? { 'mcp-bench': await mcpBackend() } : {}),
    };
    const bridge = api.createBridge({ capabilities: specs, backends, maxResultBytes: BIG });
    const limits = { maxOutputBytes: BIG, maxCalls: 5000, timeoutMs: 120_000 };
    // `engine`: 'isolated-vm' (as, as22, as24) or 'quickjs' (asq); a build from before the engines takes none.
    const engine = typeof options.engine === 'string' ? options.engine : undefined;
    // `isolation`: 'worker' (as, asq, …), 'thread' (asth: sandbox threads of this process) or
    // 'in-process' (asip, asqip: the isolate in this process).
    const isolation = options.isolation === 'in-process' || options.isolation === 'thread' ? options.isolation : 'worker';
    const sandbox = api.createSandbox({ outDir, isolation, limits, ...(engine ? { engine } : {}) });
    // Commits before 6ead558 (the boundary rewrite) have no handleEncoded: README, comparing commits.
    const onCall = bridge.handleEncoded ?? bridge.handle;
    return {
      info: `Agent Spaces (${isolation}${engine ? `, ${engine}` : ''}) from its tsc-built dist on Node ${process.version}, onCall: bridge.${bridge.handleEncoded ? 'handleEncoded' : 'handle'}`,
      async run(body, uses, { check }) {
        const local = uses.filter((name) => !(name in MCP));
        const remote = uses.filter((name) => name in MCP);
        const imports = [
          local.length > 0 ? `import { ${local.join(', ')} } from '@capabilities/bench';\n` : '',
          remote.length > 0
            ? `import { ${remote.map((name) => `${MCP[name]} as ${name}`).join(', ')} } from '@capabilities/mcp-bench';\n`
            : '',
        ].join('');
        const result = await sandbox.run(imports + body, { onCall, check, limits });
        if (!result.success) throw new Error(`Agent Spaces run failed: ${JSON.stringify(result.error)}`);
        return result.result;
      },
      async close() {
        await Promise.all([sandbox.close(), bridge.close()]);
      },
    };
  },
});
