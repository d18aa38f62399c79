import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processExists } from './test-support/mcp-test-calls.js';

const host = fileURLToPath(new URL('./__fixtures__/host-process.ts', import.meta.url));

async function startHost(): Promise<{ child: ReturnType<typeof spawn>; serverPid: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', host], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  for await (const chunk of child.stdout) {
    output += String(chunk);
    if (output.includes('\n')) break;
  }
  const serverPid = Number(output.trim());
  if (!Number.isInteger(serverPid)) throw new Error(`the host printed ${JSON.stringify(output)}`);
  return { child, serverPid };
}

describe('exit cleanup', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`kills the MCP server children when the host gets ${signal}, and the host still ends`, async () => {
      const { child, serverPid } = await startHost();
      expect(processExists(serverPid)).toBe(true);
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code, endedBy] = (await exited) as [number | null, NodeJS.Signals | null];
      // Ended by the signal it was sent (re-raised after cleanup), not by a normal exit.
      expect({ code, endedBy }).toEqual({ code: null, endedBy: signal });
      // The server was mid-call in a 60 s sleep: only the cleanup can have ended it this soon.
      await expect.poll(() => processExists(serverPid)).toBe(false);
    });
  }
});
