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
