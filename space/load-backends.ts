import path from 'node:path';
import { createInProcessBackend, type Backend } from '../bridge/index.js';
import { createMcpBackend } from '../bridge/mcp/index.js';
import { importTypeScript, type McpServerConfig, type ResolvedConfig } from '../config/index.js';
import {
  CompileError,
  defineTool,
  errorMessage,
  isToolDefinition,
  type AnyFunctionDefinition,
  type CapabilitySpec,
  type ToolDefinition,
} from '../core/index.js';

/**
 * The backends that perform the calls of a built space: `defineTool` modules and JSON tools with an
 * implementation run in-process on the host; std tools too; MCP servers through one client pool.
 * Tool modules are imported again from their source files (the build output holds no host code).
 */
export async function loadBackends(
  config: ResolvedConfig,
  specs: CapabilitySpec[],
  stdTools: Map<string, ToolDefinition>,
): Promise<{ backends: Record<string, Backend>; close: () => Promise<void> }> {
  const inProcess: Record<string, ToolDefinition> = {};
  const mcpServers: Record<string, { name: string; config: McpServerConfig }> = {};
  const problems: string[] = [];
  const imports = new Map<string, Promise<Record<string, unknown>>>();
  const load = (file: string) => {
    const absolute = path.resolve(config.root, file);
    let pending = imports.get(absolute);
    if (!pending) {
      pending = importTypeScript(absolute) as Promise<Record<string, unknown>>;
      imports.set(absolute, pending);
    }
    return pending;
  };

  await Promise.all(
    specs.map(async (spec) => {
      const source = spec.source;
      try {
        switch (source.kind) {
          case 'std': {
            const definition = stdTools.get(spec.module);
            if (definition) inProcess[spec.module] = definition;
            break;
          }
          case 'typescript': {
            const definition = (await load(source.path))[source.exportName];
            if (!isToolDefinition(definition)) throw new Error(`export "${source.exportName}" is no longer a defineTool() definition`);
            inProcess[spec.module] = definition;
            break;
          }
          case 'json': {
            if (!source.implementation) break; // calls fail with a clear "no backend" error
            const file = path.join(path.dirname(source.path), source.implementation);
            inProcess[spec.module] = implementationToDefinition(spec, await load(file), file);
            break;
          }
          case 'mcp': {
            const server = config.mcpServers[source.server];
            if (server) mcpServers[spec.module] = { name: source.server, config: server };
            break;
          }
          case 'agent':
            break;
        }
      } catch (error) {
        problems.push(`@capabilities/${spec.module} (${'path' in source ? source.path : source.kind}): ${errorMessage(error)}`);
      }
    }),
  );
  if (problems.length > 0) {
    throw new CompileError('BACKEND_LOAD_FAILED', `could not load the host side of some capabilities (rebuild with \`agent-spaces capabilities build\` if files moved):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  const backends: Record<string, Backend> = {};
  if (Object.keys(inProcess).length > 0) {
    const backend = createInProcessBackend(inProcess);
    for (const module of Object.keys(inProcess)) backends[module] = backend;
  }
  let mcp: Backend | undefined;
  if (Object.keys(mcpServers).length > 0) {
    mcp = createMcpBackend({ servers: mcpServers });
    for (const module of Object.keys(mcpServers)) backends[module] = mcp;
  }
  const unique = new Set(Object.values(backends));
  return { backends, close: async () => void (await Promise.all([...unique].map((backend) => backend.close()))) };
}

/** A JSON tool's implementation module: one exported function per original tool name. */
function implementationToDefinition(spec: CapabilitySpec, module: Record<string, unknown>, file: string): ToolDefinition {
  const functions: Record<string, AnyFunctionDefinition> = {};
  const missing: string[] = [];
  for (const fn of spec.functions) {
    const handler = module[fn.toolName] ?? module[fn.name];
    if (typeof handler !== 'function') {
      missing.push(fn.toolName);
      continue;
    }
    functions[fn.toolName] = { handler: handler as AnyFunctionDefinition['handler'] };
  }
  if (missing.length > 0) throw new Error(`${file} exports no function for ${missing.map((m) => `"${m}"`).join(', ')}`);
  return defineTool({ name: spec.namespace, functions });
}
