import { createSpace, type Space, type SpaceOptions } from '../space/index.js';
import { createAgentSpacesMcpServer, createRunRouter } from './create-mcp-server.js';
import { serveMcp, type McpServeOptions } from './serve-mcp.js';

export const SERVER_INFO = { name: 'agent-spaces', version: '0.1.0' };

export interface ServeOptions extends Omit<SpaceOptions, 'approvalHandler' | 'onEvent'>, McpServeOptions {
  /** How the space is made (default `createSpace`); the CLI passes `openSpace`, which adds the config's agents. */
  openSpace?: (options: SpaceOptions) => Promise<Space>;
}

export interface RunningServer {
  space: Space;
  /** For HTTP: the address actually bound (port 0 picks a free one). */
  url?: string;
  close(): Promise<void>;
}

/** Serves a space over MCP (stdio by default, Streamable HTTP with `http`): one MCP server per session. */
export async function serveSpace(options: ServeOptions): Promise<RunningServer> {
  const router = createRunRouter();
  const { http, log = () => undefined, openSpace = createSpace, ...spaceOptions } = options;
  const space = await openSpace({ ...spaceOptions, onEvent: router.onEvent, approvalHandler: router.approve });
  try {
    const running = await serveMcp(() => createAgentSpacesMcpServer(space, router, SERVER_INFO), { ...(http ? { http } : {}), log });
    log(running.url ? `agent-spaces: serving MCP (Streamable HTTP) at ${running.url}${http?.token ? ' (bearer token required)' : ''}` : 'agent-spaces: serving MCP on stdio');
    return {
      space,
      ...(running.url ? { url: running.url } : {}),
      async close() {
        await running.close();
        await space.close();
      },
    };
  } catch (error) {
    await space.close();
    throw error;
  }
}
