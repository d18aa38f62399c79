import { importTypeScript } from '../../config/index.js';
import { CompileError, errorMessage, isToolDefinition } from '../../core/index.js';
import type { ToolDefinition } from '../../core/index.js';
import type { RawCapability } from '../../core/index.js';
import { toolDefinitionToRaw } from './tool-definition.js';
import { isTypeOnlyReturns, typeScriptReturns } from './typescript-returns.js';

export interface LoadedTypeScriptTools {
  capabilities: RawCapability[];
  /** The definitions themselves (with handlers), for the host's in-process backend. */
  definitions: ToolDefinition[];
}

/**
 * Imports a `capabilities/*.ts` module and collects every `defineTool()` it exports. `importModule`
 * lets the files source import each file once for both the build and the host's backend.
 */
export async function loadTypeScriptToolFile(
  path: string,
  options: { name?: string; importModule?: (file: string) => Promise<unknown> } = {},
): Promise<LoadedTypeScriptTools> {
  // How the file is named in messages and in the spec: relative to the space's root when the build says so.
  const file = options.name ?? path;
  let module: Record<string, unknown>;
  try {
    module = (await (options.importModule ?? importTypeScript)(path)) as Record<string, unknown>;
  } catch (error) {
    throw new CompileError('INVALID_TOOL_FILE', `${file}: could not be loaded: ${errorMessage(error)}`, { cause: error });
  }
  const capabilities: RawCapability[] = [];
  const definitions: ToolDefinition[] = [];
  const seen = new Set<unknown>();
  for (const [exportName, value] of Object.entries(module).sort(([a], [b]) => a.localeCompare(b))) {
    if (!isToolDefinition(value) || seen.has(value)) continue; // `export default x` and `export const x` are one tool
    seen.add(value);
    definitions.push(value);
    const capability = toolDefinitionToRaw(value, { kind: 'typescript', path: file, exportName });
    // `returns: {} as Trip[]`: the result type is TypeScript's, read from the source.
    if (Object.values(value.functions).some((fn) => isTypeOnlyReturns(fn.returns))) {
      const declared = await typeScriptReturns(path, exportName, `${file}#${value.name}`);
      for (const fn of capability.functions) {
        const schema = declared.get(fn.toolName);
        if (schema !== undefined) fn.outputSchema = schema;
      }
    }
    capabilities.push(capability);
  }
  if (capabilities.length === 0) {
    throw new CompileError('INVALID_TOOL_FILE', `${file}: exports no defineTool() definition (export const x = defineTool({...}))`);
  }
  return { capabilities, definitions };
}
