/**
 * The QuickJS engine: quickjs-ng compiled to WebAssembly. It needs no native addon, so it runs on every
 * Node line (and beyond Node); it is slower than V8 at computing, and its instance runs on the thread
 * that enters it (see run-in-quickjs.ts).
 */
import type { Engine, EnginePlacement, EngineStatus } from '../engine.js';
import { loadQuickJs, quickJsDescription, quickJsStatus, reloadQuickJs } from './load-quickjs.js';
import { QuickJsInstance } from './quickjs-instance.js';
import { startQuickJsRun } from './run-in-quickjs.js';

export async function loadEngine(_placement: EnginePlacement): Promise<Engine> {
  let module = await loadQuickJs();
  // After a fault inside the engine, later runs get a fresh WebAssembly instance once it is ready.
  const onFault = (): void => {
    void reloadQuickJs().then(
      (fresh) => {
        module = fresh;
      },
      () => undefined,
    );
  };
  return {
    name: 'quickjs',
    description: quickJsDescription(),
    prepare: (memoryLimitMb) => new QuickJsInstance(module, memoryLimitMb),
    startRun: (request, port, spare) =>
      startQuickJsRun(module, request, port, spare instanceof QuickJsInstance ? spare : undefined, onFault),
  };
}

export function engineStatus(): Promise<EngineStatus> {
  return quickJsStatus();
}
