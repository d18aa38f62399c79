import { createInterface } from 'node:readline/promises';
import type { ApprovalHandler } from '../core/index.js';
import { UsageError } from './output.js';

/**
 * The CLI's approval handler: `--approve all|none`, else an interactive y/N prompt on the terminal.
 * Without a terminal and without `--approve`, calls that require approval are denied.
 */
export function createCliApprovalHandler(mode: string | undefined): ApprovalHandler | undefined {
  if (mode === 'all') return () => ({ approved: true, reason: 'approved by --approve all' });
  if (mode === 'none') return () => ({ approved: false, reason: 'denied by --approve none' });
  if (mode !== undefined) throw new UsageError(`--approve takes "all" or "none" (got "${mode}")`);
  if (!process.stdin.isTTY) return undefined;
  let queue = Promise.resolve();
  return (request) => {
    // One question at a time, even when parallel calls ask together.
    const answer = queue.then(async () => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const reply = await rl.question(`\n[approval] ${request.capability}.${request.function}: ${request.message}\nAllow? [y/N] `);
        return { approved: /^y(es)?$/i.test(reply.trim()), reason: 'answered at the prompt' };
      } finally {
        rl.close();
      }
    });
    queue = answer.then(() => undefined, () => undefined);
    return answer;
  };
}
