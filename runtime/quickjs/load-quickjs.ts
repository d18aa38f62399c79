/**
 * Loads QuickJS (quickjs-ng compiled to WebAssembly, the synchronous build) once per process. The
 * synchronous build is driven by the host: every call the program makes returns a promise inside the
 * guest that the host settles later, and the host runs the guest's pending jobs itself. The asyncify
 * build is not used: it hangs or corrupts its state after a few sequential awaited host calls.
 */
import { createRequire } from 'node:module';
import type { CustomizeVariantOptions, QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';
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
    status = {
      engine: 'quickjs',
      available: true,
      detail: `${quickJsDescription()} loaded`,
      attempts: [{ candidate: VARIANT_PACKAGE, ok: true, ...versionOf(VARIANT_PACKAGE) }],
    };
  } catch (error) {
    module = undefined;
    const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    status = {
      engine: 'quickjs',
      available: false,
      detail: `${VARIANT_PACKAGE}: ${reason}`,
      attempts: [{ candidate: VARIANT_PACKAGE, ok: false, reason }],
    };
  }
  return status;
}

export function quickJsDescription(): string {
  const version = versionOf(VARIANT_PACKAGE).version;
  return `quickjs-ng in WebAssembly (${VARIANT_PACKAGE}${version === undefined ? '' : ` ${version}`} on ${CORE_PACKAGE})`;
}

/** WebAssembly pages (64 KiB each): what a module starts with (as Emscripten's default), and its most. */
const PAGE_BYTES = 64 * 1024;
const INITIAL_PAGES = 256;
const MAXIMUM_PAGES = 32_768;
/** What a module may hold beyond its runs' reservations: its own data, spare instances, fragmentation. */
const UNRESERVED_BYTES = 64 * 1024 * 1024;

/** WebAssembly.Memory (this project's typings have no WebAssembly values). */
const WasmMemory = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (descriptor: { initial: number; maximum: number }) => { readonly buffer: ArrayBuffer; grow(pages: number): number };
    };
  }
).WebAssembly.Memory;

/** Bytes of WebAssembly memory reserved by the live runs of each module. */
const reservations = new WeakMap<QuickJSWASMModule, { bytes: number }>();

/**
 * Reserves `bytes` of the module's WebAssembly memory for a run; returns the release. The memory grows
 * only up to what its live runs reserved (plus {@link UNRESERVED_BYTES}): QuickJS's own allocator limit
 * does not hold in this build, and QuickJS asks its interrupt handler (where the host measures memory)
 * only every ~10,000 loop iterations or calls, so a program allocating megabytes per native call
 * (`new Array(1e5).fill(7)`) would otherwise grow the host's memory to WebAssembly's 2 GiB before the
 * host looks. Past the reservation an allocation fails inside the engine ("out of memory"), which
 * ends the run at its memory limit. Memory never shrinks, so this bounds every later run too.
 */
export function reserveMemory(module: QuickJSWASMModule, bytes: number): () => void {
  const budget = reservations.get(module);
  if (budget === undefined) return () => undefined;
  budget.bytes += bytes;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    budget.bytes -= bytes;
  };
}

async function instantiate(): Promise<QuickJSWASMModule> {
  const [{ newQuickJSWASMModuleFromVariant, newVariant }, variant] = await Promise.all([
    import('quickjs-emscripten-core'),
    import('@jitl/quickjs-ng-wasmfile-release-sync'),
  ]);
  const budget = { bytes: 0 };
  const memory = new WasmMemory({ initial: INITIAL_PAGES, maximum: MAXIMUM_PAGES });
  const grow = memory.grow.bind(memory);
  // Emscripten's heap growth calls memory.grow and treats a throw as "no more memory" (malloc fails).
  Object.defineProperty(memory, 'grow', {
    value: (pages: number): number => {
      if (memory.buffer.byteLength + pages * PAGE_BYTES > INITIAL_PAGES * PAGE_BYTES + UNRESERVED_BYTES + budget.bytes)
        throw new RangeError('the QuickJS memory reservation is used up');
      return grow(pages);
    },
  });
  // The variant itself, not its module namespace: newVariant spreads what it gets, and the loader
  // would unwrap a spread namespace's `default` (the unchanged variant) and drop the memory.
  const namespace = variant as unknown as { default?: unknown };
  const base = (namespace.default ?? namespace) as QuickJSSyncVariant;
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(base, { wasmMemory: memory as unknown as NonNullable<CustomizeVariantOptions['wasmMemory']> }),
  );
  reservations.set(module, budget);
  return module;
}

function versionOf(name: string): { version?: string } {
  try {
    const manifest = createRequire(import.meta.url)(`${name}/package.json`) as { version?: unknown };
    return typeof manifest.version === 'string' ? { version: manifest.version } : {};
  } catch {
    return {};
  }
}
