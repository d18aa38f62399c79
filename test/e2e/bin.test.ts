// The bin works wherever it is run from, not only inside this repository (tsx is resolved from the
// package, and a folder with no config gets the defaults: the standard library). From the sources, as a
// checkout runs them (the test run may have set AGENT_SPACES_FROM_DIST for the other CLI tests).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { FROM_DIST_ENV } from '../support/dist-fresh.js';

describe('bin/agent-spaces.js', () => {
  it('runs from a folder outside the repository', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agent-spaces-bin-'));
    try {
      const result = await execa(process.execPath, [path.join(REPO, 'bin/agent-spaces.js'), 'run', '-', '--json'], {
        cwd: dir,
        env: { [FROM_DIST_ENV]: '0' },
        input: "import { json } from '@capabilities/std';\nexport default await json.parse({ text: '[1,2,3]' });",
        reject: false,
        timeout: 90_000,
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ success: true, result: [1, 2, 3] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
