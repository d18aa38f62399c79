/**
 * The QuickJS engine describing itself: quickjs-ng compiled to WebAssembly. It needs no native addon, so
 * it runs on every Node line (and beyond Node), in every placement; it is slower than V8 at computing,
 * so `auto` takes it after isolated-vm.
 */
import type { EngineDefinition } from '../engine.js';
import { quickJsStatus } from './load-quickjs.js';

declare module '../../core/engine-choice.js' {
  interface EngineRegistry {
    quickjs: true;
  }
}

export const quickJsEngine: EngineDefinition<'quickjs'> = {
  name: 'quickjs',
  autoOrder: 100,
  status: quickJsStatus,
  placementProblem: () => undefined,
  load: async (placement) => (await import('./create-engine.js')).createQuickJsEngine(placement),
  remedy: (status) => [
    `QuickJS does not load (${status.detail}): reinstall agent-spaces so that its dependency @jitl/quickjs-ng-wasmfile-release-sync is present`,
  ],
};
