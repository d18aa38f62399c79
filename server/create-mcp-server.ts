import type { McpServer } from '@modelcontextprotocol/server';
import type { Catalog } from '../compiler/index.js';
import { createRedactor, type ApprovalRequest } from '../core/index.js';
import type { Space } from '../space/index.js';
import { CODE_INSTRUCTIONS, registerCodeTools } from './code-tools.js';
import { elicitApproval } from './elicit-approval.js';
import { INVOKE_INSTRUCTIONS, registerInvokeTools, type ServeMode } from './invoke-tools.js';
import { modernEra } from './request-context.js';
import type { SpaceRunRouter } from './run-router.js';
import { MAX_RESULT_CHARS } from './tool-text.js';

/**
 * An MCP server offering code mode over a space: `search_tools`, `get_types`, `execute_code`, and the
 * pages of large results as resources. It serves both protocol eras: a 2025-11-25 session is asked for
 * approvals with elicitation requests; a 2026-07-28 request gets `input_required` with a sealed state
 * and its retry resumes the same run. Made per session (2025) or per request (2026); the space and the
 * router are shared.
 */
export async function createAgentSpacesMcpServer(
  space: Space,
  router: SpaceRunRouter,
  info: { name: string; version: string },
  options: { mode?: ServeMode; savePrograms?: boolean } = {},
): Promise<McpServer> {
  // The MCP SDK loads when a server is made, not with the package.
  const { McpServer, ResourceTemplate, inputRequired } = await import('@modelcontextprotocol/server');
  const mode = options.mode ?? 'code';
  const server = new McpServer(
    { name: info.name, version: info.version },
    { instructions: mode === 'invoke' ? INVOKE_INSTRUCTIONS : CODE_INSTRUCTIONS, capabilities: { logging: {} } },
  );
  const redact = createRedactor({ secrets: space.secrets });
  let catalogCache: Promise<Catalog> | undefined;
  const catalog = () => (catalogCache ??= space.catalog());

  if (mode !== 'code') {
    // Search-and-invoke (server/invoke-tools.ts): call_tool is a direct call through the bridge.
    registerInvokeTools(
      server,
      {
        space,
        catalog,
        redact,
        maxResultChars: MAX_RESULT_CHARS,
        register: (runId, ctx) =>
          router.register(runId, {
            onEvent: () => undefined,
            ...(!modernEra(ctx) && server.server.getClientCapabilities()?.elicitation
              ? { approve: (request: ApprovalRequest) => elicitApproval(ctx, request) }
              : {
                  denial:
                    'call_tool asks approvals by elicitation on a 2025-11-25 session; this client cannot be asked, so calls that require approval are denied',
                }),
          }),
      },
      { withSearch: mode === 'invoke' },
    );
    if (mode === 'invoke') return server;
  }
  registerCodeTools(server, {
    server,
    space,
    router,
    redact,
    catalog,
    inputRequired,
    ResourceTemplate,
    savePrograms: options.savePrograms === true,
  });
  return server;
}
