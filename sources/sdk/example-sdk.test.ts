// The example space's SDK (examples/sdk/fares, `sdks.fares` in agent-spaces.config.ts) builds and answers.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { REPO } from '../../test/support/example-space.js';
import { createSdkSource } from './index.js';

describe('the example SDK (examples/sdk/fares)', () => {
  let space: Space;

  beforeAll(async () => {
    const root = await makeTempDir('sdk-example');
    const config = resolveConfig(
      { capabilities: [], sdks: { fares: { module: path.join(REPO, 'examples/sdk/fares') } } },
      { root, env: {} },
    );
    space = await createSpace({ config, sources: [createSdkSource()], isolation: 'in-process' });
  }, 120_000);

  afterAll(async () => {
    await space?.close();
  });

  it('builds @capabilities/fares, leaving out the listener with its reason, and a program uses it', async () => {
    const build = await space.build({ force: true });
    expect(build.errors).toEqual([]);
    expect(build.manifest.capabilities[0]?.functions.map((fn) => fn.name)).toEqual(['passesList', 'passesPriceWith', 'quote']);
    expect(build.manifest.warnings.map((warning) => warning.message)).toEqual([
      'sdk:fares: "onFareChange" left out: its parameter listener: a function',
    ]);
    const result = await space.run(
      `import { quote, passesList, passesPriceWith } from '@capabilities/fares';\n` +
        `const fare = await quote({ from: 'Bern', to: 'Zürich' });\n` +
        `const [halfFare] = await passesList();\n` +
        `export default { fare: fare.chf, withHalfFare: halfFare ? await passesPriceWith({ fare, pass: halfFare }) : null };\n`,
    );
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.result).toEqual({ fare: 50, withHalfFare: 25 });
  });
});
