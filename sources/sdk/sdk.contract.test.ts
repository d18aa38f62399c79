// The SDK source passes the capability source contract, against a local SDK folder the test writes.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { resolveConfig } from '../../config/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { describeSourceContract } from '../source.contract.js';
import { createSdkSource } from './index.js';
import { writeLocalSdk } from './test-support/local-sdk.js';

describeSourceContract('sdk', async () => {
  const root = await makeTempDir('contract-sdk');
  await writeLocalSdk(root, 'sdk/trains');
  // A second SDK, its own unit: the one broken later.
  await writeLocalSdk(root, 'sdk/shop');
  const config = resolveConfig(
    {
      capabilities: [],
      sdks: {
        trains: { module: './sdk/trains', exclude: ['BookingClient'] },
        shop: { module: './sdk/shop', include: ['add'] },
        booking: {
          module: './sdk/trains',
          moduleName: 'booking',
          create: { export: 'BookingClient', args: [{ token: '${BOOKING_TOKEN}' }] },
        },
      },
    },
    { root, env: { BOOKING_TOKEN: 'bk_live_4f9a8c7d6e5b' } },
  );
  return {
    config,
    source: createSdkSource(),
    call: { module: 'trains', function: 'add', args: { a: 2, b: 3 }, expected: 5, invalidArgs: { a: 'two', b: 3 } },
    failingCall: { module: 'trains', function: 'pricesRefundsRequest', args: { ticket: 'X1' }, code: 'TOOL_FAILED' },
    breakOneUnit: async () => {
      await rm(path.join(root, 'sdk/shop'), { recursive: true });
      return { label: 'sdk:shop' };
    },
  };
});
