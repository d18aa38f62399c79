/**
 * The isolated-vm engine describing itself: V8 isolates through the isolated-vm addon, the fastest
 * engine where the addon loads (see load-isolated-vm.ts), first in `auto`'s order. In the host's own
 * process it needs Node started with --no-node-snapshot; a sandbox worker is always started so.
 */
import type { EngineDefinition } from '../engine.js';
import { hasNoNodeSnapshot } from '../node-flags.js';
import { isolatedVmStatus } from './load-isolated-vm.js';

declare module '../../core/engine-choice.js' {
  interface EngineRegistry {
    'isolated-vm': true;
  }
}

export const isolatedVmEngine: EngineDefinition<'isolated-vm'> = {
  name: 'isolated-vm',
  autoOrder: 10,
  status: isolatedVmStatus,
  placementProblem(placement) {
    // A sandbox thread runs in the host's process: it has the host's flags.
    if (placement === 'worker' || hasNoNodeSnapshot()) return undefined;
    return {
      code: 'NODE_SNAPSHOT_ENABLED',
      message: `${placement} isolation with isolated-vm needs Node started with --no-node-snapshot (isolated-vm crashes without it); start node with that flag, set NODE_OPTIONS=--no-node-snapshot, use isolation: "worker", or engine: "quickjs"`,
      autoReason: `this process runs without --no-node-snapshot, which ${placement === 'thread' ? 'isolates on its threads' : 'in-process isolates'} need`,
    };
  },
  load: async (placement) => (await import('./create-engine.js')).createIsolatedVmEngine(placement),
  remedy: () => [installAdvice(Number(process.versions.node.split('.')[0]))],
};

/** Which isolated-vm major to install on Node `major` (each major is built for some LTS lines only). */
function installAdvice(major: number): string {
  const fits: Record<number, string> = {
    20: 'Node 20: isolated-vm needs a compile: npm install isolated-vm@5 with its install script allowed (python3, make and a C++ compiler); or use Node 22+, where a prebuilt binary exists',
    22: 'Node 22: npm install isolated-vm@6 (prebuilt binary for Node 22), or isolated-vm@5 compiled from source',
    24: 'Node 24: npm install isolated-vm@7 or isolated-vm@6 (prebuilt binaries for Node 24)',
    26: 'Node 26: npm install isolated-vm@7 (prebuilt binary for Node 26)',
  };
  return (
    fits[major] ??
    `Node ${process.versions.node}: no isolated-vm major is built for this line (they support the even LTS lines 20-26); use an LTS line for the faster engine`
  );
}
