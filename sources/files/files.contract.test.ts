// The tool-files source passes the capability source contract for both of its kinds: JSON tool files
// (performed by their implementation modules) and TypeScript defineTool modules.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveConfig } from '../../config/index.js';
import { REPO } from '../../test/support/example-space.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { describeSourceContract } from '../source.contract.js';
import { createFilesSource } from './files-source.js';

const CORE_URL = pathToFileURL(path.join(REPO, 'core/index.ts')).href;

const NUMBERS = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
  additionalProperties: false,
};

describeSourceContract('files (JSON tool files)', async () => {
  const root = await makeTempDir('contract-json');
  await mkdir(path.join(root, 'tools/impl'), { recursive: true });
  await writeFile(
    path.join(root, 'tools/calc.json'),
    JSON.stringify({
      name: 'calc',
      implementation: './impl/calc.ts',
      functions: [
        { name: 'add', parameters: NUMBERS },
        { name: 'divide', parameters: NUMBERS },
      ],
    }),
  );
  await writeFile(
    path.join(root, 'tools/impl/calc.ts'),
    `export function add({ a, b }: { a: number; b: number }) { return a + b; }
export function divide({ a, b }: { a: number; b: number }) { if (b === 0) throw new Error('division by zero'); return a / b; }
`,
  );
  await writeFile(
    path.join(root, 'tools/echo.json'),
    JSON.stringify({
      name: 'echo',
      implementation: './impl/echo.ts',
      parameters: { type: 'object', properties: { text: { type: 'string' } } },
    }),
  );
  await writeFile(path.join(root, 'tools/impl/echo.ts'), `export function echo({ text }: { text?: string }) { return text ?? ''; }\n`);
  return {
    config: resolveConfig({ capabilities: ['tools/*.json'] }, { root, env: {} }),
    source: createFilesSource(),
    call: { module: 'calc', function: 'add', args: { a: 2, b: 3 }, expected: 5, invalidArgs: { a: '2', b: 3 } },
    failingCall: { module: 'calc', function: 'divide', args: { a: 1, b: 0 }, code: 'TOOL_FAILED' },
    breakOneUnit: async () => {
      await writeFile(path.join(root, 'tools/calc.json'), '{ "name": "calc", ');
      return { label: path.join('tools', 'calc.json') };
    },
  };
});

describeSourceContract('files (defineTool modules)', async () => {
  const root = await makeTempDir('contract-ts');
  await mkdir(path.join(root, 'capabilities'), { recursive: true });
  await writeFile(
    path.join(root, 'capabilities/crm.ts'),
    `import { defineTool } from '${CORE_URL}';
export const crm = defineTool({
  name: 'crm',
  functions: {
    getCustomer: {
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      handler: ({ id }: { id: string }) => ({ id, name: 'Ada' }),
    },
    deleteCustomer: {
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      handler: ({ id }: { id: string }) => { throw new Error('customer ' + id + ' is protected'); },
    },
  },
});
`,
  );
  await writeFile(
    path.join(root, 'capabilities/clock.ts'),
    `import { defineTool } from '${CORE_URL}';
export default defineTool({ name: 'clock', functions: { epoch: { handler: () => 0 } } });
`,
  );
  return {
    config: resolveConfig({ capabilities: ['capabilities/*.ts'] }, { root, env: {} }),
    source: createFilesSource(),
    call: { module: 'crm', function: 'getCustomer', args: { id: 'c1' }, expected: { id: 'c1', name: 'Ada' }, invalidArgs: { id: 42 } },
    failingCall: { module: 'crm', function: 'deleteCustomer', args: { id: 'c1' }, code: 'TOOL_FAILED' },
    breakOneUnit: async () => {
      await writeFile(path.join(root, 'capabilities/crm.ts'), 'export const crm = defineTool({ name: ');
      return { label: path.join('capabilities', 'crm.ts') };
    },
  };
});
