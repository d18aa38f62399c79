import { createSandbox } from '../create-sandbox.js';
import { describeSandboxContract, FIXTURE_OUT_DIR } from '../sandbox.contract.js';

describeSandboxContract('in-process', () => createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process' }));
