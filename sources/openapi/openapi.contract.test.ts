// The OpenAPI source passes the capability source contract, against the Petstore served by a real HTTP server.
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveConfig } from '../../config/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { describeSourceContract } from '../source.contract.js';
import { openapiSource } from './index.js';
import { startPetstoreServer } from './test-support/petstore-server.js';

describeSourceContract('openapi', async () => {
  const server = await startPetstoreServer({ apiKey: 'contract-key-123' });
  const root = await makeTempDir('contract-openapi');
  // Two APIs, each its own unit: the shop's spec is the one broken later.
  const fixture = path.join(import.meta.dirname, '__fixtures__', 'petstore.yaml');
  await copyFile(fixture, path.join(root, 'petstore.yaml'));
  await copyFile(fixture, path.join(root, 'shop.yaml'));
  const baseUrl = `${server.origin}/api/v3`;
  const config = resolveConfig(
    {
      capabilities: [],
      openapi: {
        petstore: { spec: 'petstore.yaml', baseUrl, include: { tags: ['pet'] } },
        shop: { spec: 'shop.yaml', baseUrl, include: { tags: ['store'] } },
      },
    },
    { root, env: {} },
  );
  return {
    config,
    source: openapiSource,
    call: {
      module: 'openapi-petstore',
      function: 'getPetById',
      args: { petId: 1 },
      expected: { id: 1, name: 'Rex', photoUrls: [], status: 'available', tags: [{ id: 1, name: 'good' }] },
      invalidArgs: { petId: 'one' },
    },
    failingCall: { module: 'openapi-petstore', function: 'getPetById', args: { petId: 999 }, code: 'TOOL_ERROR_RESULT' },
    breakOneUnit: async () => {
      await writeFile(path.join(root, 'shop.yaml'), 'openapi: 3.0.3\ninfo: [not closed\n');
      return { label: 'openapi:shop' };
    },
    close: () => server.close(),
  };
});
