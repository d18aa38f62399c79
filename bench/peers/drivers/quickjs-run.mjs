// One run of the bare QuickJS floor (quickjs-floor.mjs in the driver's process, hop-sandbox.mjs across a
// process hop): quickjs-emscripten with no framework — a fresh runtime and context per run, the program as
// a plain async function (no module loader, no guest globals, no limits but a memory cap), one host
// function `__call(name, argsJson)` that returns a guest promise the host settles with the result's JSON
// text (parsed by the guest's JSON.parse), and a job pump after each settlement.

/**
 * `runtime.executePendingJobs()` without its 0.32.0 flaw: it reads the context that ran the jobs through
 * an Int32Array view made before they ran; when the jobs grow WebAssembly memory (W5a's 5.7 MB) the view
 * is detached, the library makes a phantom context and the runtime's dispose aborts. Same FFI call, the
 * out-pointer read through a fresh view.
 */
function pumpJobs(runtime, vm) {
  const { module, ffi, rt } = runtime;
  const out = module._malloc(4);
  try {
    new Int32Array(module.HEAPU8.buffer, out, 1)[0] = 0;
    const value = ffi.QTS_ExecutePendingJob(rt.value, -1, out);
    const context = new Int32Array(module.HEAPU8.buffer, out, 1)[0];
    if (context === 0 || context !== vm.ctx.value) {
      ffi.QTS_FreeValuePointerRuntime(rt.value, value);
      return;
    }
    const handle = vm.getMemory(rt.value).heapValueHandle(value);
    const failed = vm.typeof(handle) !== 'number';
    const message = failed ? vm.dump(handle) : undefined;
    handle.dispose();
    if (failed) throw new Error(`a job threw: ${JSON.stringify(message)}`);
  } finally {
    module._free(out);
  }
}

/**
 * Runs `body` (its tools `uses`) in a fresh QuickJS runtime of the module `QuickJS`; each tool call is
 * `callTool(name, argsJson)`, a promise of the result's JSON text. Returns the JSON text of the program's
 * value.
 */
export async function runInQuickJs(QuickJS, body, uses, callTool) {
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(128 * 1024 * 1024);
  const vm = runtime.newContext();
  let settled = 0;
  let wake;
  let disposed = false;
  /** The guest promises of calls in flight: settled by their tool's answer, or disposed with the run. */
  const inFlight = new Set();
  try {
    const call = vm.newFunction('__call', (nameHandle, argsHandle) => {
      const deferred = vm.newPromise();
      inFlight.add(deferred);
      const name = vm.getString(nameHandle);
      const args = vm.getString(argsHandle);
      const settle = (ok, text) => {
        if (disposed) return;
        const handle = ok ? vm.newString(text) : vm.newError(text);
        if (ok) deferred.resolve(handle);
        else deferred.reject(handle);
        handle.dispose();
        deferred.dispose();
        inFlight.delete(deferred);
        settled++;
        wake?.();
      };
      Promise.resolve()
        .then(() => callTool(name, args))
        .then(
          (json) => settle(true, json),
          (error) => settle(false, error instanceof Error ? error.message : String(error)),
        );
      return deferred.handle;
    });
    vm.setProp(vm.global, '__call', call);
    call.dispose();
    const bindings = uses
      .map((name) => `const ${name} = (args) => __call(${JSON.stringify(name)}, JSON.stringify(args)).then(JSON.parse);`)
      .join('\n');
    const source = `(async () => {\n${bindings}\n${body}\n})().then((value) => { globalThis.__result = JSON.stringify(value === undefined ? null : value); globalThis.__done = true; }, (error) => { globalThis.__error = error instanceof Error ? error.message + '\\n' + error.stack : String(error); globalThis.__done = true; });`;
    vm.unwrapResult(vm.evalCode(source)).dispose();
    const done = () => vm.getProp(vm.global, '__done').consume((handle) => vm.typeof(handle) === 'boolean');
    for (;;) {
      pumpJobs(runtime, vm);
      if (done()) break;
      if (inFlight.size === 0) throw new Error('the program waits on nothing');
      const before = settled;
      await new Promise((resolve) => {
        wake = resolve;
        if (settled !== before) resolve();
      });
      wake = undefined;
    }
    const error = vm.getProp(vm.global, '__error').consume((handle) => (vm.typeof(handle) === 'string' ? vm.getString(handle) : undefined));
    if (error !== undefined) throw new Error(`QuickJS floor run failed: ${error}`);
    return vm.getProp(vm.global, '__result').consume((handle) => vm.getString(handle));
  } finally {
    // A run that ended with calls in flight (a race, a failure) leaves their promises: freed first, or the
    // runtime's dispose aborts on live objects; their late answers are dropped.
    disposed = true;
    for (const deferred of inFlight) deferred.dispose();
    vm.dispose();
    runtime.dispose();
  }
}

/** Loads the quickjs-ng synchronous WebAssembly build (the one Agent Spaces' QuickJS engine loads, from this repository). */
export async function loadQuickJs() {
  const [core, variant] = await Promise.all([import('quickjs-emscripten-core'), import('@jitl/quickjs-ng-wasmfile-release-sync')]);
  return core.newQuickJSWASMModuleFromVariant(variant.default);
}
