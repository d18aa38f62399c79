export { createSandbox } from './create-sandbox.js';
export type { WorkerSandbox } from './create-sandbox.js';
export { runCode } from './run-code.js';
export { createTypeChecker, warmTypeChecker } from './type-check.js';
export type { TypeChecker } from './type-check.js';
export { DEFAULT_RUN_LIMITS } from './sandbox.js';
export type { Isolation, RunLimits, RunOptions, Sandbox, SandboxOptions } from './sandbox.js';
