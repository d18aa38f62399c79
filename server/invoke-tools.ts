import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { Catalog } from '../compiler/index.js';
import { BUILD_LAYOUT, ToolCallError, errorMessage, type CapabilitySpec } from '../core/index.js';
import { searchTools, type Space } from '../space/index.js';
import { z } from 'zod';
import { searchToolsInput } from './tool-schemas.js';
import { traceOf } from './trace-of.js';

/**
 * What `serve` offers: `code` — search_tools, get_types, execute_code (code mode, the default);
 * `invoke` — search_tools and call_tool, no code (search-and-invoke: any MCP client, and policies that
 * allow no code); `both` — all four.
 */
export type ServeMode = 'code' | 'invoke' | 'both';

export const SERVE_MODES: readonly ServeMode[] = ['code', 'invoke', 'both'];

/** Most schemas one search answer carries in search-and-invoke mode: a page, however large the space. */
export const MAX_SCHEMAS_PER_SEARCH = 20;
/** Modules whose specs are kept in memory for call_tool's schemas (each read from its own schema.json). */
const MODULE_CACHE_SIZE = 64;

export const INVOKE_INSTRUCTIONS = `Agent Spaces offers many tools through two:
1. search_tools finds functions by what they do (query in words; an empty query lists the modules) and returns each match's id and JSON Schema of its arguments.
2. call_tool calls one function by its id ("<module>.<function>") with arguments matching that schema, and returns its result as JSON.
Calls marked "requires approval" pause until the user decides.`;

export const callToolInput = {
  name: z.string().min(1).describe('The function\'s id from search_tools, "<module>.<function>", e.g. "crm.searchCustomers"'),
  arguments: z.record(z.string(), z.unknown()).optional().describe('The arguments, matching the inputSchema search_tools gave'),
};

/** How the invoke tools reach the rest of the server: approvals of a call, and redaction of what it returns. */
export interface InvokeToolsContext {
  space: Space;
  catalog: () => Promise<Catalog>;
  /** Registers a call's run id so its approval reaches this request's client (see `RunRouter`). */
  register(runId: string, ctx: ServerContext): () => void;
  redact<T>(value: T): T;
  maxResultChars: number;
}

/**
 * Registers search-and-invoke: `search_tools` (matches with the JSON Schema of their arguments, a page at
 * most, never the code-only functions) and `call_tool` (one direct call through the bridge: validation,
 * approvals, rate limits, callers and events as for any call). With `withSearch: false` only call_tool
 * is added (mode `both`: code mode's search_tools stays, and marks who may call each function).
 */
export function registerInvokeTools(server: McpServer, context: InvokeToolsContext, options: { withSearch: boolean }): void {
  const specs = moduleSpecs(context.space.config.outDir);
  let directCatalog: Promise<Catalog> | undefined;
  // Code-only functions are not offered as direct tools.
  const offered = () =>
    (directCatalog ??= context
      .catalog()
      .then((catalog) => ({ ...catalog, functions: catalog.functions.filter((entry) => entry.callers !== 'code') })));

  if (options.withSearch) {
    server.registerTool(
      'search_tools',
      {
        title: 'Search tools',
        description: `Find functions by what they do. Returns ids (<module>.<function>) with descriptions and the JSON Schema of their arguments (at most ${MAX_SCHEMAS_PER_SEARCH} per answer); call one with call_tool.`,
        inputSchema: searchToolsInput,
        annotations: { readOnlyHint: true },
      },
      async ({ query, detail_level, limit }) => {
        const found = searchTools(await offered(), query, {
          detailLevel: detail_level ?? 'summary',
          limit: Math.min(limit ?? 10, MAX_SCHEMAS_PER_SEARCH),
        });
        const matches = await Promise.all(
          found.matches.map(async (match) => {
            if (detail_level === 'names') return match;
            const fn = (await specs.get(match.module))?.functions.find((candidate) => candidate.name === match.function);
            return fn === undefined
              ? match
              : { ...match, inputSchema: fn.inputSchema, ...(fn.outputSchema === undefined ? {} : { outputSchema: fn.outputSchema }) };
          }),
        );
        return text(JSON.stringify({ ...found, matches }, null, 2), context.maxResultChars);
      },
    );
  }

  server.registerTool(
    'call_tool',
    {
      title: 'Call a tool',
      description:
        'Call one function found with search_tools by its id, with arguments matching its inputSchema. Returns the result as JSON.',
      inputSchema: callToolInput,
    },
    async ({ name, arguments: args }, ctx) => {
      const runId = randomUUID();
      const unregister = context.register(runId, ctx);
      try {
        const value = await context.space.callTool(name, args ?? {}, { runId, signal: ctx.mcpReq.signal, ...traceOf(ctx) });
        return text(JSON.stringify(context.redact(value) ?? null, null, 2), context.maxResultChars);
      } catch (error) {
        if (error instanceof ToolCallError) return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] };
        return { isError: true, content: [{ type: 'text', text: `call_tool failed: ${context.redact(errorMessage(error))}` }] };
      } finally {
        unregister();
      }
    },
  );
}

/** The spec of one module, read from its own `schema.json` when first needed, a bounded number kept. */
function moduleSpecs(outDir: string): { get(module: string): Promise<CapabilitySpec | undefined> } {
  const cache = new Map<string, Promise<CapabilitySpec | undefined>>();
  return {
    get(module) {
      let spec = cache.get(module);
      if (spec !== undefined) {
        cache.delete(module);
        cache.set(module, spec);
        return spec;
      }
      if (!/^[a-z0-9][a-z0-9-]*$/.test(module)) return Promise.resolve(undefined);
      const file = path.join(outDir, BUILD_LAYOUT.capabilitiesDir, module, BUILD_LAYOUT.moduleFiles.schema);
      spec = readFile(file, 'utf8').then(
        (json) => JSON.parse(json) as CapabilitySpec,
        () => undefined,
      );
      cache.set(module, spec);
      if (cache.size > MODULE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      return spec;
    },
  };
}

function text(body: string, max: number): CallToolResult {
  if (body.length <= max) return { content: [{ type: 'text', text: body }] };
  return {
    content: [
      {
        type: 'text',
        text: `${body.slice(0, max)}\n… [cut at ${max} of ${body.length} characters: ask for less (filter, a page) or a narrower query]`,
      },
    ],
  };
}
