/**
 * The isolated-vm engine describing itself: V8 isolates through the isolated-vm addon, the fastest
 * engine where the addon loads (see load-isolated-vm.ts), first in `auto`'s order. In the host's own
 * process it needs Node started with --no-node-snapshot; a sandbox worker is always started so.
 */
import type { EngineDefinition } from '../engine.js';
import { hasNoNodeSnapshot } from '../node-flags.js';
import { isolatedVmStatus } from './load-isolated-vm.js';

declare module '../engine.js' {
  interface EngineRegistry {
    'isolated-vm': true;
  }
}

export const isolatedVmEngine: EngineDefinition<'isolated-vm'> = {
  name: 'isolated-vm',
  autoOrder: 10,
  status: isolatedVmStatus,
  placementProblem(placement) {
    if (placement !== 'in-process' || hasNoNodeSnapshot()) return undefined;
    return {
      code: 'NODE_SNAPSHOT_ENABLED',
      message:
        'in-process isolation with isolated-vm needs Node started with --no-node-snapshot (isolated-vm crashes without it); start node with that flag, set NODE_OPTIONS=--no-node-snapshot, use isolation: "worker", or engine: "quickjs"',
      autoReason: 'this process runs without --no-node-snapshot, which in-process isolates need',
    };
  },
  load: async (placement) => (await import('./create-engine.js')).createIsolatedVmEngine(placement),
};
