// The QuickJS floor: quickjs-emscripten with no framework — the quickjs-ng synchronous WebAssembly build
// (the one Agent Spaces' QuickJS engine loads, from this repository's node_modules), a fresh runtime and
// context per run, the program as a plain async function (no module loader, no guest globals, no
// limits but a memory cap), one host function `__call(name, argsJson)` that returns a guest promise the
// host settles with the result's JSON text (parsed by the guest's JSON.parse), and a job pump after each
// settlement (pumpJobs: the library's own pump reads a stale memory view, see below). The result leaves as JSON text (JSON.stringify in the guest, JSON.parse on the host). For
// W4 the tools wrap an MCP SDK Client, as in the isolated-vm floor. What any QuickJS design must pay.
/* global process */
import { mcpTools, serveDriver } from './common.mjs';
import { tools } from '../data.mjs';

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

await serveDriver({
  async load() {
    const [core, variant] = await Promise.all([import('quickjs-emscripten-core'), import('@jitl/quickjs-ng-wasmfile-release-sync')]);
    return { QuickJS: await core.newQuickJSWASMModuleFromVariant(variant.default) };
  },
  async setup({ QuickJS }, options) {
    const mcp = await mcpTools(options, 'bench-quickjs-floor');
    const host = { ...tools, ...mcp.tools };
    return {
      info: `bare quickjs-emscripten (quickjs-ng sync build) on Node ${process.version}`,
      async run(body, uses) {
        const runtime = QuickJS.newRuntime();
        runtime.setMemoryLimit(128 * 1024 * 1024);
        const vm = runtime.newContext();
        try {
          let settled = 0;
          let pending = 0;
          let wake;
          const call = vm.newFunction('__call', (nameHandle, argsHandle) => {
            const name = vm.getString(nameHandle);
            const args = JSON.parse(vm.getString(argsHandle));
            const deferred = vm.newPromise();
            pending++;
            Promise.resolve(host[name](args)).then((value) => {
              const text = vm.newString(JSON.stringify(value));
              deferred.resolve(text);
              text.dispose();
              deferred.dispose();
              pending--;
              settled++;
              wake?.();
            });
            return deferred.handle;
          });
          vm.setProp(vm.global, '__call', call);
          call.dispose();
          const bindings = uses
            .map((name) => `const ${name} = (args) => __call(${JSON.stringify(name)}, JSON.stringify(args)).then(JSON.parse);`)
            .join('\n');
          const source = `(async () => {\n${bindings}\n${body}\n})().then((value) => { globalThis.__result = JSON.stringify(value === undefined ? null : value); globalThis.__done = true; }, (error) => { globalThis.__error = String(error && error.stack || error); globalThis.__done = true; });`;
          vm.unwrapResult(vm.evalCode(source)).dispose();
          const done = () => vm.getProp(vm.global, '__done').consume((handle) => vm.typeof(handle) === 'boolean');
          for (;;) {
            pumpJobs(runtime, vm);
            if (done()) break;
            if (pending === 0) throw new Error('the program waits on nothing');
            const before = settled;
            await new Promise((resolve) => {
              wake = resolve;
              if (settled !== before) resolve();
            });
            wake = undefined;
          }
          const error = vm
            .getProp(vm.global, '__error')
            .consume((handle) => (vm.typeof(handle) === 'string' ? vm.getString(handle) : undefined));
          if (error !== undefined) throw new Error(`QuickJS floor run failed: ${error}`);
          return JSON.parse(vm.getProp(vm.global, '__result').consume((handle) => vm.getString(handle)));
        } finally {
          vm.dispose();
          runtime.dispose();
        }
      },
      close: mcp.close,
    };
  },
});
