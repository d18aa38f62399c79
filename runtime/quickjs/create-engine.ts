/**
 * The QuickJS engine, loaded: quickjs-ng compiled to WebAssembly. Its instance runs on the thread that
 * enters it (see run-in-quickjs.ts).
 */
import type { Engine, EnginePlacement } from '../engine.js';
import { loadQuickJs, quickJsDescription, reloadQuickJs } from './load-quickjs.js';
import { QuickJsInstance } from './quickjs-instance.js';
import { startQuickJsRun } from './run-in-quickjs.js';

export async function createQuickJsEngine(_placement: EnginePlacement): Promise<Engine> {
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
