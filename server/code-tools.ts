import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type * as ServerSdk from '@modelcontextprotocol/server';
import type { CallToolResult, McpServer, ReadResourceResult, ServerContext } from '@modelcontextprotocol/server';
import type { Catalog } from '../compiler/index.js';
import { BUILD_LAYOUT } from '../core/index.js';
import { addDeclarations, searchTools, type Space } from '../space/index.js';
import { executeCode, type ExecuteCodeContext } from './execute-code.js';
import { registerSaveProgramTool } from './save-program-tool.js';
import { pageScope } from './request-context.js';
import { RESULT_PAGE_TEMPLATE } from './result-pages.js';
import { describeRun } from './run-result-to-tool.js';
import { executeCodeInput, executeCodeOutput, getTypesInput, searchToolsInput } from './tool-schemas.js';
import { errorText, searchResultText, text } from './tool-text.js';

export const CODE_INSTRUCTIONS = `Agent Spaces runs TypeScript that you write against typed capability modules.
1. search_tools finds functions (query in words; an empty query lists the modules).
2. get_types returns the TypeScript declarations of the modules you need.
3. execute_code runs your program: import { fn } from '@capabilities/<module>', await calls (use Promise.all for independent ones), filter and aggregate in code, and \`export default\` only what you need — logs and results are size-capped.
Calls marked "requires approval" pause until the user decides.`;

/** What the code tools need of their MCP server instance. */
export interface CodeToolsContext extends ExecuteCodeContext {
  catalog: () => Promise<Catalog>;
  /** The SDK's `ResourceTemplate`, loaded with the server. */
  ResourceTemplate: typeof ServerSdk.ResourceTemplate;
  /** Offer `save_program` (server/save-program-tool.ts): it writes to the space, so only when asked. */
  savePrograms?: boolean;
}

/**
 * Registers code mode: `search_tools`, `get_types`, `execute_code`, and the pages of large execute_code
 * results as resources.
 */
export function registerCodeTools(server: McpServer, context: CodeToolsContext): void {
  server.registerTool(
    'search_tools',
    {
      title: 'Search tools',
      description: 'Find capability functions by what they do. Returns ids (<module>.<function>), signatures and descriptions.',
      inputSchema: searchToolsInput,
      annotations: { readOnlyHint: true },
    },
    async ({ query, detail_level, limit }) => {
      const found = searchTools(await context.catalog(), query, {
        ...(detail_level ? { detailLevel: detail_level } : {}),
        ...(limit ? { limit } : {}),
      });
      // "full" carries each function's whole declaration from the build, as the planner's search does.
      const result = detail_level === 'full' ? await addDeclarations(found, context.space.config.outDir) : found;
      return text(searchResultText(result));
    },
  );

  server.registerTool(
    'get_types',
    {
      title: 'Get TypeScript declarations',
      description: 'The TypeScript declarations of capability modules, to write code against.',
      inputSchema: getTypesInput,
      annotations: { readOnlyHint: true },
    },
    ({ modules }) => getTypes(context.space, modules),
  );

  server.registerTool(
    'execute_code',
    {
      title: 'Execute TypeScript',
      description:
        'Type-check and run a TypeScript program in the sandbox with every capability. Returns result, logs, and errors with line numbers. A result too large for one answer comes with a resource link to read it in pages.',
      inputSchema: executeCodeInput,
      outputSchema: executeCodeOutput,
    },
    ({ code }, ctx) => executeCode(context, code, ctx),
  );
  if (context.savePrograms === true) registerSaveProgramTool(server, context.space);

  server.registerResource(
    'execute_code results',
    new context.ResourceTemplate(RESULT_PAGE_TEMPLATE, { list: undefined }),
    {
      title: 'Pages of a large execute_code result',
      description:
        'The whole text of an execute_code result too large for one answer, one page per URI (pages from 1); linked from that result.',
      mimeType: 'text/plain',
    },
    (uri, variables, ctx) => readResultPage(context, uri, variables, ctx),
  );
}

/** The declarations of the modules asked for (`@capabilities/` optional), or an error naming the unknown ones. */
async function getTypes(space: Space, modules: string[]): Promise<CallToolResult> {
  const specs = await space.capabilities();
  const known = new Set([...specs.map((spec) => spec.module), ...(specs.some((s) => s.source.kind === 'std') ? ['std'] : [])]);
  const parts: string[] = [];
  const unknown: string[] = [];
  for (const requested of modules) {
    const module = requested.replace(/^@capabilities\//, '');
    if (!known.has(module)) {
      unknown.push(requested);
      continue;
    }
    const dts = await readFile(
      path.join(space.config.outDir, BUILD_LAYOUT.capabilitiesDir, module, BUILD_LAYOUT.moduleFiles.declarations),
      'utf8',
    );
    parts.push(`// ----- import ... from '@capabilities/${module}' -----\n${dts}`);
  }
  if (unknown.length > 0) {
    return errorText(
      `unknown module${unknown.length > 1 ? 's' : ''} ${unknown.map((m) => `"${m}"`).join(', ')}; known: ${[...known].sort().join(', ')}`,
    );
  }
  return text(parts.join('\n'));
}

/** One page of a large execute_code result; a stored run's pages are made again from the store's result on any replica. */
async function readResultPage(
  context: CodeToolsContext,
  uri: URL,
  variables: Record<string, string | string[]>,
  ctx: ServerContext,
): Promise<ReadResourceResult> {
  const { router, redact } = context;
  const stored = router.stored;
  const remake = stored
    ? async (run: string) => {
        const result = await stored.runResult(run);
        return result === undefined ? undefined : describeRun(redact(result));
      }
    : undefined;
  const page = await router.pages.read(String(variables.handle), String(variables.page), pageScope(ctx), remake);
  if ('missing' in page) throw new Error(`no such result page: ${page.missing}`);
  return {
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: page.text }],
    _meta: {
      'agent-spaces/page': page.page,
      'agent-spaces/pages': page.pages,
      ...(page.next ? { 'agent-spaces/next': page.next } : {}),
    },
  };
}
