/**
 * The isolated-vm engine: V8 isolates through the isolated-vm addon, the fastest engine where the addon
 * loads (see load-isolated-vm.ts). In a sandbox worker the program runs on the worker's main thread; in
 * the host's process on isolated-vm's own threads, so the host's event loop stays free.
 */
import type { Engine, EnginePlacement, EngineStatus } from '../engine.js';
import { isolatedVmStatus, loadIsolatedVm } from './load-isolated-vm.js';
import { prepareIsolate, type PreparedIsolate } from './prepare-isolate.js';
import { startIsolateRun } from './run-in-isolate.js';

export async function loadEngine(placement: EnginePlacement): Promise<Engine> {
  loadIsolatedVm();
  const threading = placement === 'worker' ? 'caller' : 'pool';
  return {
    name: 'isolated-vm',
    description: isolatedVmStatus().detail.replace(/ loaded$/, ''),
    prepare: (memoryLimitMb) => prepareIsolate(memoryLimitMb, threading),
    startRun: (request, port, spare) =>
      startIsolateRun(request, port, spare?.engine === 'isolated-vm' ? (spare as PreparedIsolate) : undefined, threading),
  };
}

export async function engineStatus(): Promise<EngineStatus> {
  return isolatedVmStatus();
}
