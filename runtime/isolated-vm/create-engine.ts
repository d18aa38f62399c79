/**
 * The isolated-vm engine, loaded: V8 isolates through the isolated-vm addon. In a sandbox worker (a
 * process or a thread) the program runs on the worker's own thread; in the host's process on isolated-vm's own threads, so the
 * host's event loop stays free.
 */
import type { Engine, EnginePlacement } from '../engine.js';
import { isolatedVmStatus, loadIsolatedVm } from './load-isolated-vm.js';
import { prepareIsolate, type PreparedIsolate } from './prepare-isolate.js';
import { startIsolateRun } from './run-in-isolate.js';

export function createIsolatedVmEngine(placement: EnginePlacement): Engine {
  loadIsolatedVm();
  const threading = placement === 'in-process' ? 'pool' : 'caller';
  return {
    name: 'isolated-vm',
    description: isolatedVmStatus().detail.replace(/ loaded$/, ''),
    prepare: (memoryLimitMb) => prepareIsolate(memoryLimitMb, threading),
    startRun: (request, port, spare) =>
      startIsolateRun(request, port, spare?.engine === 'isolated-vm' ? (spare as PreparedIsolate) : undefined, threading),
  };
}
