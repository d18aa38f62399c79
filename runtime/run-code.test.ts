import { describe, expect, it } from 'vitest';
import { runCode } from './run-code.js';
import { createFixtureHost, FIXTURE_OUT_DIR } from './sandbox.contract.js';

describe('runCode', () => {
  it('runs one program in a one-off worker sandbox', async () => {
    const host = createFixtureHost();
    const result = await runCode("import { add } from '@capabilities/math';\nreturn await add({ a: 2, b: 3 });", {
      outDir: FIXTURE_OUT_DIR,
      onCall: host.onCall,
    });
    expect(result).toMatchObject({ success: true, result: 5, calls: 1 });
  });
});
