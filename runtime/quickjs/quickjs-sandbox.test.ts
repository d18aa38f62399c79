/**
 * The sandbox contract on QuickJS, in both isolation modes: in a sandbox worker process, and in the
 * host's own process (on its thread, each entry bounded by the run's time).
 */
import { createSandbox } from '../create-sandbox.js';
import { describeSandboxContract, FIXTURE_OUT_DIR } from '../sandbox.contract.js';

describeSandboxContract(
  'quickjs in-process',
  () => createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine: 'quickjs' }),
  'quickjs',
);

describeSandboxContract(
  'quickjs worker pool',
  async () => {
    const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'worker', workers: 2, engine: 'quickjs' });
    await sandbox.ready();
    return sandbox;
  },
  'quickjs',
);
