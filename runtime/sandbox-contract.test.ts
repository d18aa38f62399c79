/**
 * The sandbox contract on every registered engine (engines.ts) in every placement: in a sandbox worker
 * process, on a sandbox thread of the host's process, and in the host's own process. A new engine is
 * tested here without editing this file.
 * `AGENT_SPACES_ENGINE=<engine>` narrows it to that engine (CI runs it so on every Node line).
 */
import { createSandbox } from './create-sandbox.js';
import { contractMatrix, describeSandboxContract, FIXTURE_OUT_DIR } from './sandbox.contract.js';

const NAMES = { worker: 'worker pool', thread: 'thread pool', 'in-process': 'in-process' } as const;

for (const { engine, placement } of contractMatrix()) {
  describeSandboxContract(
    `${engine} ${NAMES[placement]}`,
    async () => {
      if (placement === 'in-process') return createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine });
      const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: placement, workers: 2, engine });
      await sandbox.ready();
      return sandbox;
    },
    engine,
  );
}
