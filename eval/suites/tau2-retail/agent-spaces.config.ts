// The space of the τ²-bench retail suite: one capability, @capabilities/retail. `agent-spaces eval`
// builds it into the run folder (outDir below is for a build by hand).
import { defineConfig } from 'agent-spaces';

export default defineConfig({
  capabilities: ['capabilities/*.ts'],
  outDir: '.agent-spaces',
});
