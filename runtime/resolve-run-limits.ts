import { SandboxError } from '../core/errors.js';
import { DEFAULT_RUN_LIMITS, type RunLimits } from './sandbox.js';

/** Merges limit overrides onto a base, refusing values that are not positive finite numbers. */
export function resolveRunLimits(base: RunLimits = DEFAULT_RUN_LIMITS, override: Partial<RunLimits> = {}): RunLimits {
  const limits = { ...base };
  for (const key of Object.keys(DEFAULT_RUN_LIMITS) as (keyof RunLimits)[]) {
    const value = override[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new SandboxError(
        'INVALID_OPTIONS',
        `sandbox limit "${key}" must be a positive number (got ${String(value)}); fix the limits passed to createSandbox() or run()`,
        {
          details: { limit: key, value },
        },
      );
    }
    limits[key] = value;
  }
  if (limits.memoryLimitMb < 8) {
    throw new SandboxError(
      'INVALID_OPTIONS',
      `sandbox limit "memoryLimitMb" must be at least 8 (isolated-vm's minimum; got ${limits.memoryLimitMb})`,
    );
  }
  return limits;
}
