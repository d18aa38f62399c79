import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeSourceContract } from '../../sources/source.contract.js';
import { createSpace } from '../create-space.js';
import { createSavedSource, saveProgram } from './index.js';
import { makeSavedSpace } from './test-support/saved-space.js';

const DOUBLE =
  'export default async function double(input: { n: number }): Promise<{ doubled: number }> {\n  return { doubled: input.n * 2 };\n}\n';
const FAIL = "export default async function boom(): Promise<number> {\n  throw new Error('boom');\n}\n";

describeSourceContract('saved', async () => {
  const { config } = await makeSavedSpace('saved-contract');
  // Two groups saved through a space with every source (the contract's space then has the saved source alone).
  const setup = await createSpace({ config, isolation: 'in-process' });
  try {
    await saveProgram(setup, DOUBLE, { as: 'contract.double', origin: { savedBy: 'contract test' } });
    await saveProgram(setup, FAIL, { as: 'failing.boom', origin: { savedBy: 'contract test' } });
  } finally {
    await setup.close();
  }
  return {
    config,
    source: createSavedSource(config),
    call: { module: 'saved-contract', function: 'double', args: { n: 21 }, expected: { doubled: 42 }, invalidArgs: { n: 'twenty' } },
    failingCall: { module: 'saved-failing', function: 'boom', args: {}, code: 'TOOL_FAILED' },
    breakOneUnit: async () => {
      await writeFile(path.join(config.root, 'saved', 'failing', 'boom.json'), '{ not json');
      return { label: 'saved/failing' };
    },
  };
});
