import { createSandbox } from '../create-sandbox.js';
import { contractEngine, describeSandboxContract, FIXTURE_OUT_DIR } from '../sandbox.contract.js';

// AGENT_SPACES_ENGINE=quickjs runs this on QuickJS (default: auto, isolated-vm where it loads).
const engine = contractEngine();
describeSandboxContract(
  `in-process (${engine})`,
  () => createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process', engine }),
  engine,
);
