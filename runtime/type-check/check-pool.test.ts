// Warming the type checker: TypeScript loads in a worker while the host does other things; the next
// check uses that worker, and a warm worker with nothing to do does not keep the process alive.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { FIXTURE_OUT_DIR } from '../sandbox.contract.js';
import { createTypeChecker, warmTypeChecker } from '../type-check.js';

const TYPE_CHECK = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'type-check.ts')).href;

describe('warmTypeChecker', () => {
  it('lets the next check run in the worker it started', async () => {
    // Its own heap limit, so this pool is not the one other tests of this process share.
    warmTypeChecker({ memoryLimitMb: 384 });
    const checker = createTypeChecker({ outDir: FIXTURE_OUT_DIR, memoryLimitMb: 384 });
    expect(
      await checker.check("import { add } from '@capabilities/math';\nconst s: string = await add({ a: 1, b: 2 });\nreturn s;"),
    ).toEqual([expect.objectContaining({ line: 2, code: 2322 })]);
  }, 120_000);

  it('does not keep a process alive that ends without a check', async () => {
    const child = await execa(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { warmTypeChecker } = await import(${JSON.stringify(TYPE_CHECK)});\nwarmTypeChecker();\nconsole.log('warmed');`,
      ],
      {
        reject: false,
        timeout: 120_000,
      },
    );
    expect(child.timedOut).toBe(false);
    expect(child.exitCode, child.stderr).toBe(0);
    expect(child.stdout).toBe('warmed');
  }, 150_000);
});
