import { openSpace } from '../../agents/index.js';
import { MAX_OBSERVED_TEXT_BYTES, createResultRecorder } from '../../bridge/index.js';
import { formatSignature, readInferredResults } from '../../compiler/index.js';
import { AgentSpacesError, closestKey, type CapabilitySpec, type FunctionSpec } from '../../core/index.js';
import { createCliApprovalHandler } from '../approval-prompt.js';
import { printJson, printText, progress, UsageError } from '../output.js';

export interface SampleCommandOptions {
  cwd: string;
  config?: string;
  json: boolean;
  /** `module.function`, as `capabilities list` shows it. */
  id: string;
  /** The call's arguments as JSON text. */
  args?: string;
  approve?: string;
}

/**
 * `agent-spaces capabilities sample <module.function> --args '{…}'`: one call of a read-only MCP tool
 * that declares no output schema, through the space's bridge (validation, approvals, rate limits), whose
 * JSON text result teaches the function's result type. The next build declares it.
 */
export async function sampleCommand(options: SampleCommandOptions): Promise<number> {
  const args = parseArguments(options.args);
  const approvalHandler = createCliApprovalHandler(options.approve);
  const space = await openSpace({
    cwd: options.cwd,
    ...(options.config ? { configFile: options.config } : {}),
    ...(approvalHandler ? { approvalHandler } : {}),
  });
  try {
    const { capability, fn } = findFunction(await space.capabilities(), options.id);
    refuseUnlessSampleable(capability, fn);
    const full = await space.callTool(`${capability.module}.${fn.name}`, args, { resultMode: 'full' });
    const value = parseJsonText(textOf(full), options.id);
    const recorder = createResultRecorder({ outDir: space.config.outDir });
    recorder.record(capability.module, fn.toolName, value, 'sample');
    await recorder.flush();
    const entry = (await readInferredResults(space.config.outDir, capability.module))[fn.toolName];
    if (entry === undefined)
      throw new AgentSpacesError(
        'SAMPLE_NOT_STORED',
        `${options.id}: the learned type could not be read back from ${space.config.outDir}/inferred/${capability.module}.json`,
      );
    if (options.json) {
      printJson({ id: `${capability.module}.${fn.name}`, samples: entry.samples, sources: entry.sources, schema: entry.schema });
    } else {
      const signature = formatSignature({ ...fn, inferredResult: entry });
      printText(
        `${capability.module}.${fn.name}: result type learned from ${entry.samples} result${entry.samples === 1 ? '' : 's'}: ${signature}`,
      );
      progress('run "agent-spaces capabilities build" to declare it');
    }
    return 0;
  } finally {
    await space.close();
  }
}

function parseArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args must be a JSON object, such as '{"city": "Oslo"}' (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`--args must be a JSON object, such as '{"city": "Oslo"}' (got ${text})`);
  return value as Record<string, unknown>;
}

function findFunction(specs: readonly CapabilitySpec[], id: string): { capability: CapabilitySpec; fn: FunctionSpec } {
  const ids = specs.flatMap((capability) => capability.functions.map((fn) => ({ id: `${capability.module}.${fn.name}`, capability, fn })));
  const found = ids.find((entry) => entry.id === id);
  if (found !== undefined) return found;
  const near = closestKey(
    id,
    ids.map((entry) => entry.id),
  );
  throw new UsageError(
    `no function "${id}" in the build${near === undefined ? '' : ` (did you mean "${near}"?)`}: "agent-spaces capabilities list" shows them as module.function`,
  );
}

/** Only a text-returning MCP tool known to be read-only is called to learn from (see FunctionSpec.effects). */
function refuseUnlessSampleable(capability: CapabilitySpec, fn: FunctionSpec): void {
  const id = `${capability.module}.${fn.name}`;
  const server = capability.source.kind === 'mcp' ? capability.source.server : undefined;
  if (server === undefined || fn.resultKind !== 'mcp-text') {
    throw new AgentSpacesError('NOT_SAMPLEABLE', `${id} is not an MCP tool returning text: only those have result types to learn`);
  }
  if (fn.outputSchema !== undefined)
    throw new AgentSpacesError('NOT_SAMPLEABLE', `${id} declares an output schema: its result type is already known`);
  if (fn.effects === 'side-effects') {
    throw new AgentSpacesError(
      'NOT_SAMPLEABLE',
      `${id} is marked as having side effects (mcpServers.${server}.sideEffects, or the tool's readOnlyHint/destructiveHint annotations), so it is not called to learn its result type; its results are not learned from runs either`,
    );
  }
  if (fn.effects !== 'read-only') {
    throw new AgentSpacesError(
      'NOT_SAMPLEABLE',
      `${id}: tool "${fn.toolName}" is not known to be read-only (it has no readOnlyHint annotation), so sample will not call it: if calling it changes nothing, say so in the config with mcpServers.${server}.sideEffects (false, or a list of the server's tools that do have side effects) and sample again (a changed config is built first). Its JSON results are still learned from the calls runs make`,
    );
  }
}

/** The text blocks of a full MCP result, joined as the function's text value would be. */
function textOf(full: unknown): string {
  const content = typeof full === 'object' && full !== null ? (full as { content?: unknown }).content : undefined;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((block: unknown) =>
      typeof block === 'object' &&
      block !== null &&
      (block as { type?: unknown }).type === 'text' &&
      typeof (block as { text?: unknown }).text === 'string'
        ? [(block as { text: string }).text]
        : [],
    )
    .join('\n');
}

function parseJsonText(text: string, id: string): unknown {
  if (Buffer.byteLength(text) > MAX_OBSERVED_TEXT_BYTES) {
    throw new AgentSpacesError(
      'SAMPLE_TOO_LARGE',
      `${id} returned ${Buffer.byteLength(text)} bytes of text, over the ${MAX_OBSERVED_TEXT_BYTES}-byte limit for learning from: ask for less (--args)`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AgentSpacesError(
      'SAMPLE_NOT_JSON',
      `${id} returned text that is not JSON (${preview(text)}): there is no result type to learn`,
    );
  }
  if (typeof value !== 'object' || value === null) {
    throw new AgentSpacesError(
      'SAMPLE_NOT_JSON',
      `${id} returned ${preview(text)}, not a JSON object or array: there is no result type worth declaring`,
    );
  }
  return value;
}

function preview(text: string): string {
  const line = text.trim().replace(/\s+/g, ' ');
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 57)}…` : line);
}
