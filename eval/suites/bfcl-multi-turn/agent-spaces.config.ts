// The space of the BFCL multi-turn suite: one capability, @capabilities/bfcl. `agent-spaces eval`
// builds it into the run folder (outDir below is for a build by hand).
import { defineConfig } from 'agent-spaces';

export default defineConfig({
  capabilities: ['capabilities/*.ts'],
  outDir: '.agent-spaces',
});
