/**
 * The contract every kind of capability source passes (run by one `<kind>.contract.test.ts` each):
 * discover → build → call through the sandbox (bridge validation, the source's backend) → errors.
 * A source's own test file brings a space where the source finds something, and the calls to make.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities, type BuildResult } from '../compiler/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { CapabilitySpec } from '../core/index.js';
import { createSpace, type Space } from '../space/index.js';
import { kindsOf } from '../core/index.js';
import type { CapabilitySource } from './capability-source.js';

/** One call a program makes: `@capabilities/<module>`'s export `function`, with `args`. */
export interface ContractCall {
  module: string;
  function: string;
  args: Record<string, unknown>;
}

export interface SourceContractCase {
  /** The config of a space in which the source finds at least the modules of the calls below. */
  config: ResolvedConfig;
  source: CapabilitySource;
  /**
   * A call that succeeds, the value it resolves to in the program, and arguments its input schema
   * refuses (the bridge must stop them before the backend).
   */
  call: ContractCall & { expected: unknown; invalidArgs: Record<string, unknown> };
  /** A call whose tool fails when performed, and the `ToolCallError` code the program sees. */
  failingCall: ContractCall & { code: string };
  /**
   * Breaks one unit of the source (a file that no longer parses, a server that does not start, a
   * definition with a misplaced key): returns that unit's label and, when the break is a different
   * source instance, that source. The unit's previous output must be kept, everything else built.
   */
  breakOneUnit: () => Promise<{ label: string; source?: CapabilitySource }>;
  /** Ends what the case started (servers); the space is closed by the suite. */
  close?: () => Promise<void>;
}

/**
 * Runs the contract for one source. `makeCase` is called once, before the tests; each case gets its
 * own space (in-process isolation: the contract is about the source, not the sandbox).
 */
export function describeSourceContract(name: string, makeCase: () => Promise<SourceContractCase>): void {
  describe(`capability source contract: ${name}`, () => {
    let contract: SourceContractCase;
    let space: Space;
    let build: BuildResult;

    beforeAll(async () => {
      contract = await makeCase();
      space = await createSpace({ config: contract.config, sources: [contract.source], isolation: 'in-process' });
      build = await space.build({ force: true });
    }, 120_000);

    afterAll(async () => {
      await space?.close();
      await contract?.close?.();
    });

    const specOf = (module: string): CapabilitySpec | undefined => build.manifest.capabilities.find((spec) => spec.module === module);

    it('discovers its capabilities: every built module has one of its kinds, and the build reports no failure', () => {
      expect(build.errors).toEqual([]);
      expect(specOf(contract.call.module), `@capabilities/${contract.call.module} was not built`).toBeDefined();
      expect(specOf(contract.failingCall.module), `@capabilities/${contract.failingCall.module} was not built`).toBeDefined();
      const kinds = kindsOf(contract.source);
      expect(build.manifest.capabilities.filter((spec) => !kinds.includes(spec.source.kind)).map((spec) => spec.module)).toEqual([]);
    });

    it('describes each of its entries with a non-empty name the build reports it under', () => {
      for (const spec of build.manifest.capabilities) {
        const label = contract.source.describe(spec.source);
        expect(label.trim()).not.toBe('');
        expect(build.sources.some((report) => report.source === label && report.modules.includes(spec.module))).toBe(true);
      }
    });

    it('declares the secrets of its configuration, each a value of 4 characters or more with a reason', () => {
      const secrets = contract.source.secrets(contract.config);
      expect(Array.isArray(secrets)).toBe(true);
      for (const secret of secrets) {
        expect(secret.value.length).toBeGreaterThanOrEqual(4);
        expect(secret.label.trim()).not.toBe('');
        expect(['strong', 'weak']).toContain(secret.strength);
      }
    });

    it('emits a declaration for the called function', async () => {
      const spec = specOf(contract.call.module);
      const fn = spec?.functions.find((candidate) => candidate.name === contract.call.function);
      expect(fn, `${contract.call.module} has no function ${contract.call.function}`).toBeDefined();
      const diagnostics = await space.check(
        `import { ${contract.call.function} } from '@capabilities/${contract.call.module}';\nexport default await ${contract.call.function}(${JSON.stringify(contract.call.args)});\n`,
      );
      expect(diagnostics).toEqual([]);
    });

    it('performs a call made by a program in the sandbox, through its backend', async () => {
      const { module, function: fn, args } = contract.call;
      const result = await space.run(
        `import { ${fn} } from '@capabilities/${module}';\nexport default await ${fn}(${JSON.stringify(args)});\n`,
      );
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
      expect(result.result).toEqual(contract.call.expected);
    });

    it("reports a failing tool to the program as a ToolCallError with the tool's code", async () => {
      const { module, function: fn, args } = contract.failingCall;
      const result = await space.run(
        `import { ${fn} } from '@capabilities/${module}';\nlet code = 'none';\ntry { await ${fn}(${JSON.stringify(args)}); } catch (error) { code = error.code; }\nexport default code;\n`,
        { check: false },
      );
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
      expect(result.result).toBe(contract.failingCall.code);
    });

    it('never reaches its backend with arguments its schema refuses (the bridge stops them)', async () => {
      const { module, function: fn, invalidArgs } = contract.call;
      const result = await space.run(
        `import { ${fn} } from '@capabilities/${module}';\nlet code = 'none';\ntry { await ${fn}(${JSON.stringify(invalidArgs)}); } catch (error) { code = error.code; }\nexport default code;\n`,
        { check: false },
      );
      expect(result.error, JSON.stringify(result.error)).toBeUndefined();
      expect(result.result).toBe('INVALID_ARGUMENTS');
    });

    it('reports a unit that fails to load under its label, keeps its previous output and builds the rest', async () => {
      const broken = await contract.breakOneUnit();
      const label = broken.label;
      const again = await buildCapabilities({ config: contract.config, sources: [broken.source ?? contract.source] });
      expect(again.errors.map((failure) => failure.source)).toEqual([label]);
      expect(again.errors[0]?.message.trim()).not.toBe('');
      const report = again.sources.find((entry) => entry.source === label);
      expect(report?.status).toBe('kept-previous');
      // Every module built before is still there: the broken unit's kept, the others rebuilt or unchanged.
      expect(again.manifest.capabilities.map((spec) => spec.module).sort()).toEqual(
        build.manifest.capabilities.map((spec) => spec.module).sort(),
      );
    });
  });
}
