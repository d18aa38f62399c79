import { secretsOfArgs, secretsOfEnv, secretsOfHeaders, secretsOfUrl, type Secret } from '../../core/index.js';
import type { McpServerConfig } from '../../config/index.js';

/**
 * The secrets of one MCP server's configuration: for a stdio server, its env values that are secret
 * and the arguments that follow a key/token flag or look like credentials (not its paths, package
 * names or flags); for an HTTP server, its header values and its URL's credentials and query values.
 */
export function secretsOfMcpServer(server: McpServerConfig): Secret[] {
  if ('command' in server) return [...secretsOfArgs(server.args), ...secretsOfEnv(server.env)];
  return [...secretsOfHeaders(server.headers), ...secretsOfUrl(server.url)];
}
