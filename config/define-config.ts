import type { AgentSpacesConfigInput } from './schema.js';

/**
 * Typed identity for `agent-spaces.config.ts`.
 *
 * @example
 * export default defineConfig({
 *   capabilities: ['capabilities/*.ts', 'tools/*.json'],
 *   mcpServers: { files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}'] } },
 * });
 */
export function defineConfig(config: AgentSpacesConfigInput): AgentSpacesConfigInput {
  return config;
}
