// The example space's OpenAPI service (examples/openapi/open-meteo.yaml) builds offline into declarations
// a program type-checks against; its calls are not made here (they need api.open-meteo.com).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { createSpace } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { REPO } from '../../test/support/example-space.js';
import { openapiSource } from './index.js';

describe('the example OpenAPI service', () => {
  it('builds @capabilities/openapi-weather without the network, with declarations a program type-checks against', async () => {
    const root = await makeTempDir('openapi-example');
    const config = resolveConfig(
      { capabilities: [], openapi: { weather: { spec: path.join(REPO, 'examples/openapi/open-meteo.yaml') } } },
      { root },
    );
    const space = await createSpace({ config, sources: [openapiSource], isolation: 'in-process' });
    try {
      const build = await space.build();
      expect(build.errors).toEqual([]);
      expect(build.warnings).toEqual([]);
      const diagnostics = await space.check(`
import { getForecast } from '@capabilities/openapi-weather';
const forecast = await getForecast({ latitude: 52.52, longitude: 13.41, hourly: ['temperature_2m', 'precipitation'], timezone: 'auto', forecast_days: 2 });
const times: string[] = forecast.hourly?.time ?? [];
const zone: string = forecast.timezone;
export default { times, zone };
`);
      expect(diagnostics).toEqual([]);
      const wrong = await space.check(`
import { getForecast } from '@capabilities/openapi-weather';
await getForecast({ latitude: 52.52, longitude: 13.41, hourly: ['snowfall_depth'] });
`);
      expect(wrong).toHaveLength(1);
    } finally {
      await space.close();
    }
  }, 60_000);
});
