// The standard library source passes the capability source contract.
import path from 'node:path';
import { resolveConfig } from '../config/index.js';
import { defineTool } from '../core/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { describeSourceContract } from '../sources/source.contract.js';
import { createStdSource } from './std-source.js';

describeSourceContract('std', async () => {
  const root = await makeTempDir('contract-std');
  const config = resolveConfig({ capabilities: [], std: { fs: { root: path.join(root, 'workspace') } } }, { root, env: {} });
  return {
    config,
    source: createStdSource(config),
    call: { module: 'std-json', function: 'parse', args: { text: '{"a":[1,2]}' }, expected: { a: [1, 2] }, invalidArgs: { text: 5 } },
    failingCall: { module: 'std-fs', function: 'readFile', args: { path: 'missing.txt' }, code: 'TOOL_FAILED' },
    // A definition with a misplaced key fails the standard library's one unit.
    breakOneUnit: async () => ({
      label: 'std',
      source: createStdSource(config, {
        extraTools: {
          'std-broken': defineTool({
            name: 'broken',
            functions: { run: { config: { requiresApproval: true }, handler: () => null } as never },
          }),
        },
      }),
    }),
  };
});
