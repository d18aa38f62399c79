// QuickJS's JSON.stringify keeps the objects it is inside of in an internal array that it fills with
// [[Set]], so a setter the program put on Array.prototype[n] (or Object.prototype[n]) runs inside it,
// with that array as `this`; V8's does not. Where the engine does that, and only while such a key exists,
// the bootstrap serialises with its own stringifyJson (json.ts) instead. Known by the engine, not probed:
// a probe must put an index key on Array.prototype, and that, even for a moment, leaves every array of
// the context on slower paths for good (V8 drops its no-elements protector: `new Array(1e5).fill(7)`
// measured 20× slower, `push` 10×; QuickJS 3-4×). QuickJS is the engine with InternalError, which V8
// lacks; the hostile suite that poisons both prototypes (test/hostile/isolate-boundary.test.ts) runs on
// every engine and fails on one this answers wrongly for.
const stringifyRunsIndexSetters = typeof (globalThis as Record<string, unknown>)['InternalError'] === 'function';

// Also what an engine adds beyond the ES2022 the type check declares: QuickJS's InternalError and its
// high-resolution performance clock, and the newer Iterator and Float16Array.
for (const name of ['SharedArrayBuffer', 'Atomics', 'WebAssembly', 'performance', 'InternalError', 'Iterator', 'Float16Array'])
  delete (globalThis as Record<string, unknown>)[name];

// QuickJS's CallSite.getFunction() returns the function of every frame, strict ones too (V8 gives
// undefined for a strict frame and all below it): a program's Error.prepareStackTrace would get the
// bootstrap's functions, and builtins it calls, as values. Where the engine does that, CallSites give
// no function and no `this` at all, locked so a program cannot put them back.
/** V8's stack-trace API, which QuickJS-ng has too. */
interface CallSite {
  getFunction(): unknown;
  getThis(): unknown;
}
(() => {
  // Assigned, not defined: QuickJS keeps the hook behind an accessor of its own.
  const errorConstructor = Error as ErrorConstructor & { prepareStackTrace?: ((error: Error, sites: CallSite[]) => unknown) | undefined };
  const previous = Object.getOwnPropertyDescriptor(errorConstructor, 'prepareStackTrace');
  let site = undefined as CallSite | undefined;
  errorConstructor.prepareStackTrace = (_error, sites) => {
    site = sites[0];
    return '';
  };
  try {
    void new ErrorConstructor().stack;
  } finally {
    if (previous === undefined) delete errorConstructor.prepareStackTrace;
    else if (hasOwn(previous, 'value')) errorConstructor.prepareStackTrace = previous.value;
    else errorConstructor.prepareStackTrace = undefined;
  }
  if (site === undefined || typeof site.getFunction !== 'function' || site.getFunction() === undefined) return;
  const callSitePrototype = getPrototypeOf(site) as object;
  for (const name of ['getFunction', 'getThis']) {
    defineProperty(callSitePrototype, name, {
      value: {
        [name]() {
          return undefined;
        },
      }[name as string],
      writable: false,
      enumerable: false,
      configurable: false,
    });
  }
})();
