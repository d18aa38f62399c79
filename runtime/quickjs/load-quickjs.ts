/**
 * Loads QuickJS (quickjs-ng compiled to WebAssembly, the synchronous build) once per process. The
 * synchronous build is driven by the host: every call the program makes returns a promise inside the
 * guest that the host settles later, and the host runs the guest's pending jobs itself. The asyncify
 * build is not used: it hangs or corrupts its state after a few sequential awaited host calls.
 */
import { createRequire } from 'node:module';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { EngineStatus } from '../engine.js';

const VARIANT_PACKAGE = '@jitl/quickjs-ng-wasmfile-release-sync';
const CORE_PACKAGE = 'quickjs-emscripten-core';

let module: Promise<QuickJSWASMModule> | undefined;
let status: EngineStatus | undefined;

/** The WebAssembly module every QuickJS run of this process makes its runtime in. */
export function loadQuickJs(): Promise<QuickJSWASMModule> {
  module ??= instantiate();
  return module;
}

/**
 * A fresh WebAssembly instance: after a fault inside the WebAssembly code (an abort, a trap) the old
 * instance's memory cannot be trusted, so later runs get a new one.
 */
export function reloadQuickJs(): Promise<QuickJSWASMModule> {
  module = instantiate();
  return module;
}

/** Whether QuickJS loads here, and which build. */
export async function quickJsStatus(): Promise<EngineStatus> {
  if (status !== undefined) return status;
  try {
    await loadQuickJs();
    status = { engine: 'quickjs', available: true, detail: `${quickJsDescription()} loaded`, attempts: [{ candidate: VARIANT_PACKAGE, ok: true, ...versionOf(VARIANT_PACKAGE) }] };
  } catch (error) {
    module = undefined;
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    status = { engine: 'quickjs', available: false, detail: `${VARIANT_PACKAGE}: ${reason}`, attempts: [{ candidate: VARIANT_PACKAGE, ok: false, reason }] };
  }
  return status;
}

export function quickJsDescription(): string {
  const version = versionOf(VARIANT_PACKAGE).version;
  return `quickjs-ng in WebAssembly (${VARIANT_PACKAGE}${version === undefined ? '' : ` ${version}`} on ${CORE_PACKAGE})`;
}

async function instantiate(): Promise<QuickJSWASMModule> {
  const [{ newQuickJSWASMModuleFromVariant }, variant] = await Promise.all([import('quickjs-emscripten-core'), import('@jitl/quickjs-ng-wasmfile-release-sync')]);
  return newQuickJSWASMModuleFromVariant(variant as unknown as Parameters<typeof newQuickJSWASMModuleFromVariant>[0]);
}

function versionOf(name: string): { version?: string } {
  try {
    const manifest = createRequire(import.meta.url)(`${name}/package.json`) as { version?: unknown };
    return typeof manifest.version === 'string' ? { version: manifest.version } : {};
  } catch {
    return {};
  }
}
