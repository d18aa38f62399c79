import { randomUUID } from 'node:crypto';
import { createSchemaCompiler } from '../../bridge/index.js';
import type { FunctionSpec } from '../../core/index.js';
import { errorMessage } from '../../core/index.js';
import type { StudioContext } from './studio-context.js';
import { StudioError } from './studio-error.js';
import type { CallView, ValidationView } from './wire-types.js';

let compileSchema: ReturnType<typeof createSchemaCompiler> | undefined;

/** Checks arguments against a function's parameter schema with the bridge's own ajv setup. */
export async function validateArguments(context: StudioContext, id: string, args: unknown): Promise<ValidationView> {
  const fn = await findFunction(context, id);
  compileSchema ??= createSchemaCompiler();
  return { issues: compileSchema(fn.inputSchema)(args) };
}

/** Calls a function through the bridge, as `call_tool` does: validation, approval, rate limit, events. */
export async function callFunction(context: StudioContext, id: string, args: unknown): Promise<CallView> {
  const runId = `studio-call-${randomUUID()}`;
  const started = performance.now();
  const request = { id, arguments: args };
  try {
    const value = await context.space.callTool(id, args, { runId });
    return { request, response: { ok: true, value: context.redact(value) }, durationMs: performance.now() - started };
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : 'ERROR';
    return {
      request,
      response: { ok: false, error: { code, message: context.redact(errorMessage(error)) } },
      durationMs: performance.now() - started,
    };
  }
}

async function findFunction(context: StudioContext, id: string): Promise<FunctionSpec> {
  const dot = id.lastIndexOf('.');
  const spec = (await context.space.capabilities()).find((candidate) => candidate.module === id.slice(0, dot));
  const fn = spec?.functions.find((candidate) => candidate.name === id.slice(dot + 1));
  if (!fn)
    throw new StudioError(
      'STUDIO_NOT_FOUND',
      `no function "${id}" in the build: use "<module>.<function>" as the capabilities pane lists them`,
    );
  return fn;
}
