/**
 * The sandbox contract on every registered engine (engines.ts) in both placements: in a sandbox worker
 * process, and in the host's own process. A new engine is tested here without editing this file.
 * `AGENT_SPACES_ENGINE=<engine>` narrows it to that engine (CI runs it so on every Node line).
 */
import { createSandbox } from './create-sandbox.js';
import { contractMatrix, describeSandboxContract, FIXTURE_OUT_DIR } from './sandbox.contract.js';

for (const { engine, placement } of contractMatrix()) {
  describeSandboxContract(
    `${engine} ${placement === 'worker' ? 'worker pool' : 'in-process'}`,
    async () => {
      if (placement === 'in-process') return createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine });
      const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 2, engine });
      await sandbox.ready();
      return sandbox;
    },
    engine,
  );
}
