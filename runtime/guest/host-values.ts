/**
 * The values the guest code declares as `declare const` in src/host.d.ts, taken from the host's own
 * modules. The generated module (generated/guest-code.ts) writes each into the bootstrap as
 * `const NAME = <its JSON>;` when it loads, so a changed limit needs no new generation.
 */
import { SANDBOX_HOST_GLOBAL } from '../../core/manifest.js';
import { TIMER_LIMITS } from '../host/sandbox-timers.js';
import { URL_INVALID, URL_LIMITS, URL_TOO_LONG } from '../host/sandbox-url-host.js';

export const HOST_VALUES = {
  HOST_GLOBAL: SANDBOX_HOST_GLOBAL,
  TIMER_LIMITS,
  URL_LIMITS,
  URL_INVALID,
  URL_TOO_LONG,
} as const;

export type HostValueName = keyof typeof HOST_VALUES;
