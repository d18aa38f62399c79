/**
 * Ends the process with process.exit(7) from where a script would, around in-process runs: `result`,
 * the continuation of a run; `busy`, a timer while another run computes in a loop. Prints what it saw
 * first; the process must then end with code 7.
 */
import { createSandbox } from '../../create-sandbox.js';
import { FIXTURE_OUT_DIR } from '../../sandbox.contract.js';

const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process' });

if (process.argv[2] === 'busy') {
  // Exits once the looping run has made its call (so it is executing when the process ends).
  const onCall = async (): Promise<number> => {
    setTimeout(() => process.exit(7), 50);
    return 3;
  };
  void sandbox.run("import { add } from '@capabilities/math';\nawait add({ a: 1, b: 2 });\nfor (;;) {}", { onCall, check: false, limits: { timeoutMs: 600_000 } });
} else {
  const result = await sandbox.run('console.log("hello"); return 1;', { onCall: async () => null, check: false });
  process.stdout.write(`exiting ${result.success} ${result.logs.length}\n`);
  process.exit(7);
}
