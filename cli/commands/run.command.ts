import { defineCommand } from '../command.js';
import { UsageError } from '../usage-error.js';

export const command = defineCommand({
  name: 'run',
  synopsis: ['agent-spaces run <file.ts | -> [options]'],
  description:
    'run a program in the sandbox (- reads stdin), building first when the build is missing or out of date;\nits log lines are printed as it writes them',
  options: ['config', 'cwd', 'json', 'no-check', 'approve', 'studio', 'isolation', 'engine', 'timeout', 'verbose', 'store'],
  // Asked only in the bin's own process (the installed package): where the run goes decides whether Node
  // starts again, and the run's sandbox worker starts as soon as that is known, before the library loads
  // (with the defaults, before the config is even read): its Node start and engine load overlap ours.
  async needsIsolateFlag({ common, values }) {
    const placement = await import('./run-placement.js');
    const options = {
      cwd: common.cwd,
      ...(common.config !== undefined ? { config: common.config } : {}),
      ...(values.isolation !== undefined ? { isolation: values.isolation } : {}),
      ...(values.engine !== undefined ? { engine: values.engine } : {}),
      ...(values.store !== undefined ? { store: values.store } : {}),
    };
    // The check's worker thread (TypeScript's load: the longest part of a checked run) starts once the run
    // is known to stay in this process, as early as the sandbox worker.
    if (await placement.prestartWithoutConfig(options)) {
      if (values['no-check'] !== true) await warmChecker(false);
      return false;
    }
    if (await placement.needsIsolateFlag(options)) return true;
    if (values['no-check'] !== true) await warmChecker(false);
    await placement.prestartRunWorker(options);
    return false;
  },
  async run({ args: [first, ...rest], common, values }) {
    if (!first) throw new UsageError('run needs a program: agent-spaces run <file.ts | ->');
    if (rest.length > 0) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
    let timeoutMs: number | undefined;
    if (values.timeout !== undefined) {
      timeoutMs = Number(values.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
        throw new UsageError(`--timeout takes a positive number of milliseconds (got "${values.timeout}")`);
    }
    // A one-shot run checks once (started already in the bin's process: needsIsolateFlag above).
    if (values['no-check'] !== true) await warmChecker(values.verbose === true);
    const { runCommand } = await import('./run.js');
    return runCommand({
      ...common,
      file: first,
      check: values['no-check'] !== true,
      verbose: values.verbose === true,
      ...(values.approve !== undefined ? { approve: values.approve } : {}),
      ...(values.studio !== undefined ? { studio: values.studio } : {}),
      ...(values.isolation !== undefined ? { isolation: values.isolation } : {}),
      ...(values.engine !== undefined ? { engine: values.engine } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(values.store !== undefined ? { store: values.store } : {}),
    });
  },
});

/**
 * Starts the check worker thread now (TypeScript loads in it while this thread loads the library and
 * starts the space): with TypeScript 7's native compiler where it is installed (no TypeScript 5 lib to
 * bind), with TypeScript 5 otherwise. A second call finds it started. `verbose` says which checker.
 */
async function warmChecker(verbose: boolean): Promise<void> {
  // The file itself, not runtime/index.js: that would load the whole runtime first, which this overlaps.
  const { useNativeTypeChecker, warmTypeChecker } = await import('../../runtime/type-check.js');
  const checker = await useNativeTypeChecker();
  if (verbose)
    process.stderr.write(`  [check] ${checker.native ? checker.detail : `TypeScript 5 (no native compiler: ${checker.reason})`}\n`);
  warmTypeChecker();
}
