export {
  buildSandboxModules,
  DEFAULT_MAX_MODULE_BYTES,
  readSandboxModules,
  sandboxModulesStale,
  type SandboxModulesReport,
} from './build-sandbox-modules.js';
