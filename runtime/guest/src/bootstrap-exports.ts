// What the bootstrap function returns to the host; the generator ends the function with
// `return BOOTSTRAP_EXPORTS;`. Last of the guest files: every global is installed by now.
const BOOTSTRAP_EXPORTS: BootstrapExports = { deliver, run, wake };
