// A local SDK folder through a space: what is kept and why the rest is left out, the declarations
// (the SDK's own type names and TSDoc), calls from a sandboxed program, an instance built from config.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities, type BuildResult } from '../../compiler/index.js';
import { resolveConfig, type ResolvedConfig } from '../../config/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createSdkSource } from './index.js';
import { writeLocalSdk } from './test-support/local-sdk.js';

const TOKEN = 'bk_live_4f9a8c7d6e5b';

describe('source kind sdk: a local SDK folder', () => {
  let root: string;
  let config: ResolvedConfig;
  let space: Space;
  let build: BuildResult;

  beforeAll(async () => {
    root = await makeTempDir('sdk-local');
    await writeLocalSdk(root);
    config = resolveConfig(
      {
        capabilities: [],
        sdks: {
          trains: { module: './sdk/trains', requireApproval: ['prices.refunds.*'] },
          booking: { module: './sdk/trains', create: { export: 'BookingClient', args: [{ token: '${BOOKING_TOKEN}', region: 'eu' }] } },
        },
      },
      { root, env: { BOOKING_TOKEN: TOKEN } },
    );
    space = await createSpace({ config, sources: [createSdkSource()], isolation: 'in-process' });
    build = await space.build({ force: true });
  }, 120_000);

  afterAll(async () => {
    await space?.close();
  });

  it('keeps functions, methods and nested namespaces, and says why each other export was left out', () => {
    expect(build.errors).toEqual([]);
    const trains = build.manifest.capabilities.find((spec) => spec.module === 'trains');
    expect(trains?.functions.map((fn) => [fn.name, fn.toolName])).toEqual([
      ['add', 'add'],
      ['findTrips', 'findTrips'],
      ['pricesQuote', 'prices.quote'],
      ['pricesRefundsRequest', 'prices.refunds.request'],
    ]);
    expect(trains?.functions.find((fn) => fn.name === 'pricesRefundsRequest')?.requiresApproval).toBe(true);
    expect(build.manifest.warnings.filter((warning) => warning.source === 'sdk:trains').map((warning) => warning.message)).toEqual([
      'sdk:trains: "board" left out: its result is not JSON data: a stream',
      `sdk:trains: "BookingClient" left out: a class (its instances are not JSON data): to call its methods, build one from config with \`create: { export: 'BookingClient', args: [...] }\``,
      'sdk:trains: "departure" left out: its result is not JSON data: a Date (pass an ISO string instead)',
      'sdk:trains: "onDeparture" left out: its parameter callback: a function',
      'sdk:trains: "sum" left out: its parameter "...values" is a rest parameter (a program passes one arguments object)',
      `sdk:trains: "Timetable" left out: a class (its instances are not JSON data): to call its methods, build one from config with \`create: { export: 'Timetable', args: [...] }\``,
      'sdk:trains: "VERSION" left out: not a function (a value of type "1.0.0")',
    ]);
    // The instance's methods only: its private helper and constructor are not functions of the module.
    expect(build.manifest.capabilities.find((spec) => spec.module === 'booking')?.functions.map((fn) => fn.name)).toEqual(['whoami']);
  });

  it("carries the SDK's type names and TSDoc into the declarations", async () => {
    const dts = await readFile(path.join(config.outDir, 'capabilities', 'trains', 'index.d.ts'), 'utf8');
    expect(dts).toContain(
      '/** A trip between two stations. */\nexport interface Trip {\n  /** Departure station code. */\n  from: string;\n  to: string;\n  /** Minutes from departure to arrival. */\n  minutes: number;\n  stops?: string[];\n}\n',
    );
    expect(dts).toContain('/** A currency prices are given in. */\nexport type Currency = "EUR" | "CHF";\n');
    expect(dts).toContain('export type FindTripsResult = Trip[];\n');
    expect(dts).toContain(
      '/** Finds the trips between two stations, fastest first. */\nexport declare function findTrips(params: FindTripsParams): Promise<FindTripsResult>;\n',
    );
    expect(dts).toContain('export interface PricesQuoteParams {\n  trip: Trip;\n  currency?: Currency;\n}\n');
    expect(
      await space.check(
        `import { findTrips } from '@capabilities/trains';\nconst trips = await findTrips({ from: 'BE', to: 'ZH' });\nexport default trips[0]?.minutes.toFixed(0);\n`,
      ),
    ).toEqual([]);
    const wrong = await space.check(
      `import { findTrips } from '@capabilities/trains';\nexport default (await findTrips({ from: 'BE', to: 'ZH' }))[0]?.duration;\n`,
    );
    expect(wrong.map((diagnostic) => diagnostic.message).join('\n')).toContain("Property 'duration' does not exist on type 'Trip'");
  });

  it('calls exported functions, namespaced methods with several parameters, and the instance built from config', async () => {
    const result = await space.run(
      `import { add, findTrips, pricesQuote } from '@capabilities/trains';\nimport { whoami } from '@capabilities/booking';\n` +
        `export default [await add({ a: 2, b: 3 }), await findTrips({ from: 'BE', to: 'ZH', limit: 1 }), await pricesQuote({ trip: { from: 'BE', to: 'ZH', minutes: 60 }, currency: 'CHF' }), await pricesQuote({ trip: { from: 'BE', to: 'ZH', minutes: 60 } }), await whoami()];\n`,
    );
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.result).toEqual([
      5,
      [{ from: 'BE', to: 'ZH', minutes: 56 }],
      { amount: 30, currency: 'CHF' },
      { amount: 27, currency: 'EUR' },
      { user: 'ada', tokenLength: TOKEN.length },
    ]);
  });

  it('refuses arguments of the wrong type at the bridge, naming the argument', async () => {
    const result = await space.run(
      `import { pricesQuote } from '@capabilities/trains';\nlet message = '';\ntry { await pricesQuote({ trip: { from: 'BE', to: 'ZH', minutes: 60 }, currency: 'USD' }); } catch (error) { message = error.code + ' ' + error.message; }\nexport default message;\n`,
      { check: false },
    );
    expect(result.result).toMatch(/^INVALID_ARGUMENTS .*currency/);
  });

  it('labels the constructor arguments that are secrets, and they never reach the program', async () => {
    expect(createSdkSource().secrets(config)).toEqual([{ value: TOKEN, label: 'sdk booking create.args[0].token', strength: 'strong' }]);
    const dts = await readFile(path.join(config.outDir, 'capabilities', 'booking', 'index.d.ts'), 'utf8');
    expect(dts).not.toContain(TOKEN);
  });

  it('leaves out what passes the declarations budget, and says how to choose', async () => {
    const small = resolveConfig(
      { capabilities: [], sdks: { trains: { module: './sdk/trains', maxDeclarationChars: 400 } } },
      { root, env: {} },
    );
    const again = await buildCapabilities({ config: { ...small, outDir: path.join(root, 'out-small') }, sources: [createSdkSource()] });
    const message = again.manifest.warnings.find((warning) => warning.message.includes('budget'))?.message;
    expect(message).toMatch(
      /^sdk:trains: \d+ functions? left out, past the declarations' budget of 400 characters \(.*\): choose the ones you need with `include`/,
    );
    expect(again.manifest.capabilities[0]?.functions.length).toBeLessThan(4);
  });

  it('fails a unit whose SDK cannot be found, saying what to install', async () => {
    const missing = resolveConfig({ capabilities: [], sdks: { nothing: { package: '@example/not-installed-sdk' } } }, { root, env: {} });
    const result = await buildCapabilities({
      config: { ...missing, outDir: path.join(root, 'out-missing') },
      sources: [createSdkSource()],
    });
    expect(result.errors.map((failure) => failure.source)).toEqual(['sdk:nothing']);
    expect(result.errors[0]?.message).toContain('sdk:nothing: no TypeScript declarations found for "@example/not-installed-sdk"');
    expect(result.errors[0]?.message).toContain('npm install @example/not-installed-sdk');
  });

  it('refuses a config with both or neither of module and package', () => {
    expect(() => resolveConfig({ sdks: { both: { module: './a', package: 'b' } } }, { root, env: {} })).toThrow(/exactly one of `module`/);
    expect(() => resolveConfig({ sdks: { none: {} } }, { root, env: {} })).toThrow(/exactly one of `module`/);
  });
});

describe('source kind sdk: a program that names an SDK module', () => {
  it('has the SDK imported as its run starts, before any call', async () => {
    const root = await makeTempDir('sdk-prepare');
    const log = path.join(root, 'loads.log');
    await mkdir(path.join(root, 'sdk'));
    await writeFile(
      path.join(root, 'sdk', 'counter.ts'),
      `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(log)}, 'loaded\\n');
/** Adds one. */
export function increment(value: number): number {
  return value + 1;
}
`,
    );
    // The module named with its .ts extension, as Node's type stripping and tsx accept it.
    const config = resolveConfig({ capabilities: [], sdks: { counter: { module: './sdk/counter.ts' } } }, { root, env: {} });
    const builder = await createSpace({ config, sources: [createSdkSource()], isolation: 'in-process' });
    expect((await builder.build({ force: true })).errors).toEqual([]);
    await builder.close();
    await writeFile(log, '');

    const later = await createSpace({ config, sources: [createSdkSource()], isolation: 'in-process' });
    try {
      const unnamed = await later.run('export default 1;', { check: false });
      expect(unnamed).toMatchObject({ success: true, result: 1 });
      const named = await later.run("import * as counter from '@capabilities/counter';\nexport default Object.keys(counter).length > 0;", {
        check: false,
      });
      expect(named).toMatchObject({ success: true, result: true });
      await expect.poll(() => readFile(log, 'utf8'), { timeout: 30_000 }).toBe('loaded\n');
      const called = await later.run("import { increment } from '@capabilities/counter';\nexport default await increment({ value: 41 });", {
        check: false,
      });
      expect(called).toMatchObject({ success: true, result: 42 });
      expect(await readFile(log, 'utf8')).toBe('loaded\n');
    } finally {
      await later.close();
    }
  });
});
