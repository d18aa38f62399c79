/**
 * Ends the process with process.exit(7) right after an in-process run, from where a script would:
 * `result`, the run's continuation; `log`, an onLog handler; `busy`, while another run computes in a
 * loop. Prints what it saw first; the process must then end with code 7.
 */
import { createSandbox } from '../../create-sandbox.js';
import { FIXTURE_OUT_DIR } from '../../sandbox.contract.js';

const sandbox = createSandbox({ outDir: FIXTURE_OUT_DIR, isolation: 'in-process' });
const where = process.argv[2] ?? 'result';
const onCall = async (): Promise<null> => null;

if (where === 'busy') {
  // Exits once the looping run has started (its log line says so).
  void sandbox.run('console.log("looping"); for (;;) {}', { onCall, check: false, limits: { timeoutMs: 600_000 }, onLog: () => process.exit(7) });
} else {
  const result = await sandbox.run('console.log("hello"); return 1;', { onCall, check: false, onLog: where === 'log' ? () => process.exit(7) : undefined });
  process.stdout.write(`exiting ${result.success} ${result.logs.length}\n`);
  process.exit(7);
}
