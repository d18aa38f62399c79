// What a cold run costs, by part. Runs in the bench's user project (it needs the package built there), so
// after `npm run bench -- peers` built it:
//   cp bench/peers/cold-run.mjs bench/.peers/agent-spaces/ && cd bench/.peers/agent-spaces
//   node --no-node-snapshot cold-run.mjs instance [count]
// times, in fresh instances (medians of `count`, default 60): QuickJS's runtime, context, the evaluation of
// the bootstrap function's text and a whole spare instance (QuickJsInstance); isolated-vm's isolate, context
// and a whole spare instance (prepareIsolate).
//   node --no-node-snapshot cold-run.mjs runs isolated-vm|quickjs [in-process|worker|thread] [runs] [gapMs]
// times `createSandbox(...).run('return 42;', { check: false })` (the project's build/ as its outDir) back to back (W1's way), or with `gapMs`
// between runs, when the sandbox has its spare instance ready (the run alone); prints the median.
/* global process, performance, console, setTimeout */
const [mode = 'instance', ...rest] = process.argv.slice(2);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const ms = (value) => `${value.toFixed(2)} ms`;

if (mode === 'instance') {
  const count = Number(rest[0] ?? 60);
  if (!Number.isInteger(count) || count < 1) throw new Error(`cold-run: count is a positive integer (got ${rest[0]})`);
  const dist = './node_modules/agent-spaces/dist/runtime/';
  const [{ loadQuickJs }, { QuickJsInstance }, { BOOTSTRAP_FUNCTION }, { loadIsolatedVm }, { prepareIsolate }] = await Promise.all([
    import(dist + 'quickjs/load-quickjs.js'),
    import(dist + 'quickjs/quickjs-instance.js'),
    import(dist + 'guest/generated/guest-code.js'),
    import(dist + 'isolated-vm/load-isolated-vm.js'),
    import(dist + 'isolated-vm/prepare-isolate.js'),
  ]);
  const quickjs = await loadQuickJs();
  const ivm = loadIsolatedVm();
  const times = {};
  const timed = (name, make) => {
    const started = performance.now();
    const value = make();
    (times[name] ??= []).push(performance.now() - started);
    return value;
  };
  for (let round = 0; round < count; round++) {
    const runtime = timed('QuickJS runtime', () => quickjs.newRuntime());
    const context = timed('QuickJS context', () => runtime.newContext());
    const evaluated = timed(`QuickJS evaluating the bootstrap's text (${BOOTSTRAP_FUNCTION.length} characters)`, () =>
      context.evalCode(BOOTSTRAP_FUNCTION, 'bootstrap.js', { type: 'global', strict: true }),
    );
    if (evaluated.error !== undefined)
      throw new Error(`cold-run: the bootstrap did not evaluate: ${JSON.stringify(context.dump(evaluated.error))}`);
    evaluated.value.dispose();
    context.dispose();
    runtime.dispose();
    timed('QuickJS spare instance (all of it)', () => new QuickJsInstance(quickjs, 128)).dispose();
    const isolate = timed('isolated-vm isolate', () => new ivm.Isolate({ memoryLimit: 128 }));
    timed('isolated-vm context', () => isolate.createContextSync());
    isolate.dispose();
    timed('isolated-vm spare instance (all of it)', () => prepareIsolate(128)).dispose();
  }
  for (const [name, values] of Object.entries(times)) console.log(`${name}: ${ms(median(values))}`);
} else if (mode === 'runs') {
  const [engine = 'quickjs', isolation = 'in-process', runsText = '60', gapText = '0'] = rest;
  const runs = Number(runsText);
  const gapMs = Number(gapText);
  if (engine !== 'isolated-vm' && engine !== 'quickjs') throw new Error(`cold-run: the engine is isolated-vm or quickjs (got ${engine})`);
  if (!['in-process', 'worker', 'thread'].includes(isolation))
    throw new Error(`cold-run: the isolation is in-process, worker or thread (got ${isolation})`);
  if (!Number.isInteger(runs) || runs < 1 || !(gapMs >= 0)) throw new Error(`cold-run: runs is a positive integer, gapMs a number ≥ 0`);
  const { createSandbox } = await import('agent-spaces');
  const sandbox = createSandbox({ outDir: 'build', isolation, engine });
  const onCall = async () => {
    throw new Error('cold-run: the program makes no call');
  };
  const times = [];
  for (let run = 0; run <= runs; run++) {
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
    const started = performance.now();
    const result = await sandbox.run('return 42;', { onCall, check: false });
    if (run > 0) times.push(performance.now() - started); // run 0 warms up
    if (!result.success || result.result !== 42) throw new Error(`cold-run: the run failed: ${JSON.stringify(result)}`);
  }
  await sandbox.close();
  console.log(
    `${engine} ${isolation}, ${runs} runs${gapMs > 0 ? `, ${gapMs} ms apart` : ' back to back'}: median ${ms(median(times))}, min ${ms(Math.min(...times))}`,
  );
} else {
  throw new Error(`cold-run: the mode is instance or runs (got ${JSON.stringify(mode)})`);
}
