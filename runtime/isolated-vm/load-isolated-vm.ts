/**
 * Loads the isolated-vm addon at run time, never at import: the library must load where no V8 addon
 * can (a Node line without a prebuilt binary, no compiler, Bun, Deno, a platform forbidding native
 * addons) and then run on QuickJS. One isolated-vm major fits each Node line (5: compiled from source,
 * Node 20/22; 6: prebuilt for 22/24; 7: prebuilt for 24/26), so the package may hold several under npm
 * aliases; they are tried in order, resolved from this package, and why each failed is kept for `auto`
 * and `doctor` to say. Their APIs are the same (isolated-vm.d.ts of 5.0.4, 6.2.0 and 7.0.1 are
 * identical); only the loading differs (5 loads `out/isolated_vm.node` built by its install script, 6
 * and 7 a prebuilt binary per Node ABI through node-gyp-build).
 */
import { createRequire } from 'node:module';
import type ivm from 'isolated-vm';
import { SandboxError } from '../../core/errors.js';
import type { EngineAttempt, EngineStatus } from '../engine.js';

export type IsolatedVm = typeof ivm;

/** The package names tried, in order: a user's own or the repository's copy, then the aliases the package installs. */
export const ISOLATED_VM_CANDIDATES = ['isolated-vm', 'isolated-vm-7', 'isolated-vm-6'] as const;

let loaded: { addon: IsolatedVm | undefined; status: EngineStatus } | undefined;

/** The addon, or `undefined` with the reasons in {@link isolatedVmStatus}. Tried once per process. */
export function tryLoadIsolatedVm(): IsolatedVm | undefined {
  loaded ??= loadFirst();
  return loaded.addon;
}

/** Whether isolated-vm loaded, which copy, and why each candidate failed. */
export function isolatedVmStatus(): EngineStatus {
  loaded ??= loadFirst();
  return loaded.status;
}

/** The addon; throws a SandboxError saying why each candidate failed when none loads. */
export function loadIsolatedVm(): IsolatedVm {
  const addon = tryLoadIsolatedVm();
  if (addon !== undefined) return addon;
  throw new SandboxError('ENGINE_UNAVAILABLE', `the isolated-vm engine is not available here: ${isolatedVmStatus().detail}; use sandbox.engine "quickjs" (or "auto"), or run \`agent-spaces doctor\` for what to install`);
}

/** Whether this process was started with `--no-node-snapshot`, which isolated-vm needs on Node 20+ wherever an isolate is made. */
export function hasNoNodeSnapshot(): boolean {
  const flags = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  return flags.includes('--no-node-snapshot');
}

function loadFirst(): { addon: IsolatedVm | undefined; status: EngineStatus } {
  const require = createRequire(import.meta.url);
  const attempts: EngineAttempt[] = [];
  for (const candidate of ISOLATED_VM_CANDIDATES) {
    const version = packageVersion(require, candidate);
    try {
      const addon = require(candidate) as IsolatedVm;
      if (typeof addon?.Isolate !== 'function') throw new Error('it did not export Isolate');
      attempts.push({ candidate, ok: true, ...(version === undefined ? {} : { version }) });
      return { addon, status: { engine: 'isolated-vm', available: true, detail: `${candidate}${version === undefined ? '' : ` ${version}`} loaded`, attempts } };
    } catch (error) {
      attempts.push({ candidate, ok: false, ...(version === undefined ? {} : { version }), reason: failureReason(candidate, version, error) });
    }
  }
  const detail = attempts.map((attempt) => `${attempt.candidate}: ${attempt.reason}`).join('; ');
  return { addon: undefined, status: { engine: 'isolated-vm', available: false, detail, attempts } };
}

function packageVersion(require: NodeJS.Require, name: string): string | undefined {
  try {
    const manifest = require(`${name}/package.json`) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/** Why `candidate` did not load, in words a person can act on. */
export function failureReason(candidate: string, version: string | undefined, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  const node = `Node ${process.versions.node} (ABI ${process.versions.modules})`;
  if (version === undefined && code === 'MODULE_NOT_FOUND') return 'not installed';
  if (/No native build was found/i.test(message)) return `no prebuilt binary for ${node} in ${candidate} ${version ?? ''}`.trimEnd();
  if (/NODE_MODULE_VERSION/.test(message)) return `built for another Node version than ${node}; reinstall it with its install script allowed`;
  if (code === 'MODULE_NOT_FOUND' && /out[\\/]isolated_vm/.test(message)) return `installed (${version ?? 'unknown version'}) but not compiled: its install script did not run or failed (it needs python3, make and a C++ compiler)`;
  if (/undefined symbol|symbol lookup/i.test(message)) return `its binary does not fit ${node}: ${firstLine(message)}`;
  return firstLine(message);
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, 300);
}
