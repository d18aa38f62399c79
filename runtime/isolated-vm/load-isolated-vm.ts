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
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
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
  throw new SandboxError(
    'ENGINE_UNAVAILABLE',
    `the isolated-vm engine is not available here: ${isolatedVmStatus().detail}; use sandbox.engine "quickjs" (or "auto"), or run \`agent-spaces doctor\` for what to install`,
  );
}

function loadFirst(): { addon: IsolatedVm | undefined; status: EngineStatus } {
  const require = createRequire(import.meta.url);
  const attempts: EngineAttempt[] = [];
  for (const candidate of ISOLATED_VM_CANDIDATES) {
    const version = packageVersion(require, candidate);
    try {
      // A binary built for another Node must not be opened at all: dlopen runs its static initialisers
      // before Node checks the ABI, and once a mismatched isolated-vm has done that, loading the right
      // one next aborts the process (seen: isolated-vm 5 built for Node 20, then 7 on Node 24).
      const foreign = foreignAbi(require, candidate);
      if (foreign !== undefined)
        throw Object.assign(new Error(`its binary was built for NODE_MODULE_VERSION ${foreign}`), { code: 'FOREIGN_ABI' });
      const addon = require(candidate) as IsolatedVm;
      if (typeof addon?.Isolate !== 'function') throw new Error('it did not export Isolate');
      attempts.push({ candidate, ok: true, ...(version === undefined ? {} : { version }) });
      return {
        addon,
        status: {
          engine: 'isolated-vm',
          available: true,
          detail: `${candidate}${version === undefined ? '' : ` ${version}`} loaded`,
          attempts,
        },
      };
    } catch (error) {
      attempts.push({
        candidate,
        ok: false,
        ...(version === undefined ? {} : { version }),
        reason: failureReason(candidate, version, error),
      });
    }
  }
  const detail = attempts.map((attempt) => `${attempt.candidate}: ${attempt.reason}`).join('; ');
  return { addon: undefined, status: { engine: 'isolated-vm', available: false, detail, attempts } };
}

/**
 * The ABI (NODE_MODULE_VERSION) the binary `candidate` would load was built for, when it is not this
 * Node's; undefined when it matches, or when the binary cannot be found before loading (then loading
 * says why). Read from the binary's `node_register_module_v<ABI>` symbol name, without opening it.
 */
function foreignAbi(require: NodeJS.Require, candidate: string): string | undefined {
  let folder: string;
  try {
    folder = path.dirname(require.resolve(`${candidate}/package.json`));
  } catch {
    return undefined;
  }
  for (const binary of binariesOf(folder)) {
    let abi: string | undefined;
    try {
      abi = binaryAbi(binary);
    } catch {
      continue;
    }
    if (abi !== undefined) return abi === process.versions.modules ? undefined : abi;
  }
  return undefined;
}

const REGISTER_SYMBOL = Buffer.from('node_register_module_v', 'latin1');
/** Bytes kept from the end of one chunk for the next: a symbol name and its digits cut in two are found whole. */
const CHUNK_OVERLAP = 64;

/**
 * The ABI in the first `node_register_module_v<ABI>` symbol name of `binary`, read in 1 MiB chunks from
 * the start (the name sits in the dynamic string table, ~150 KB into isolated-vm 5's 26 MB binary):
 * reading the whole binary as one latin1 string cost ~50 MB of memory and tens of milliseconds of CPU
 * in every process that loaded the engine (the host and each sandbox worker). Throws when it cannot be read.
 */
export function binaryAbi(binary: string, chunkBytes = 1024 * 1024): string | undefined {
  const fd = openSync(binary, 'r');
  try {
    const chunk = Buffer.allocUnsafe(Math.max(chunkBytes, 2 * CHUNK_OVERLAP));
    for (let position = 0; ;) {
      const read = readSync(fd, chunk, 0, chunk.length, position);
      const bytes = chunk.subarray(0, read);
      const at = bytes.indexOf(REGISTER_SYMBOL);
      const last = read < chunk.length;
      if (at !== -1) {
        let end = at + REGISTER_SYMBOL.length;
        while (end < read && (bytes[end] as number) >= 0x30 && (bytes[end] as number) <= 0x39) end++;
        // Digits that reach the chunk's end may go on in the next one: read again from the name.
        if (end < read || last || at === 0) {
          if (end > at + REGISTER_SYMBOL.length) return bytes.toString('latin1', at + REGISTER_SYMBOL.length, end);
          position += end;
          continue;
        }
        position += at;
        continue;
      }
      if (last) return undefined;
      position += read - CHUNK_OVERLAP;
    }
  } finally {
    closeSync(fd);
  }
}

/** Where the package's loader would take its binary from: isolated-vm 5's out/, or node-gyp-build's choice (6, 7). */
function binariesOf(folder: string): string[] {
  const found = [path.join(folder, 'out', 'isolated_vm.node')];
  try {
    const nodeGypBuild = createRequire(path.join(folder, 'package.json'))('node-gyp-build') as { path?: (dir: string) => string };
    if (typeof nodeGypBuild.path === 'function') found.unshift(nodeGypBuild.path(folder));
  } catch {
    // no node-gyp-build (isolated-vm 5), or no binary for this Node: loading says which
  }
  return found;
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
  if (code === 'FOREIGN_ABI' || /NODE_MODULE_VERSION/.test(message))
    return `built for another Node version than ${node} (${firstLine(message)}); not loaded; reinstall it with its install script allowed`;
  if (code === 'MODULE_NOT_FOUND' && /out[\\/]isolated_vm/.test(message))
    return `installed (${version ?? 'unknown version'}) but not compiled: its install script did not run or failed (it needs python3, make and a C++ compiler)`;
  if (/undefined symbol|symbol lookup/i.test(message)) return `its binary does not fit ${node}: ${firstLine(message)}`;
  return firstLine(message);
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, 300);
}
