// Closes a worker sandbox while its workers' 'ready' messages wait unread in the IPC pipe, with
// nothing else keeping the event loop alive: the process must still wait for the workers' exits.
import { fileURLToPath } from 'node:url';
import { createSandbox } from '../../create-sandbox.js';

const outDir = fileURLToPath(new URL('../../__fixtures__/build', import.meta.url));
const sandbox = createSandbox({ outDir, isolation: 'worker', workers: 2 });
const until = Date.now() + 1500;
while (Date.now() < until) {
  // Block the event loop: the workers start and send 'ready', which stays unread.
}
const pids = sandbox.pids();
await sandbox.close();
const alive = pids.filter((pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
});
process.stdout.write(`closed ${alive.length}\n`);
