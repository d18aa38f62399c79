/**
 * Saved programs as a capability source: each group under `saved/` is one module
 * `@capabilities/saved-<group>`, each program one function of it. A call runs the saved program in
 * the space's own sandbox, with the caller's run id and access, so every call it makes goes through
 * the bridge like any program's (validation, access, approvals, rate limits, journal): saving grants
 * nothing. It lives in `space/` because its backend runs code (space/ may use runtime/ and bridge/;
 * sources/ may not).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedConfig } from '../../config/index.js';
import {
  ToolCallError,
  type Backend,
  type BackendCall,
  type CallAccess,
  type RawCapability,
  type RawFunction,
  type RunResult,
  type ToolCallErrorCode,
} from '../../core/index.js';
import type { CapabilitySource } from '../../sources/index.js';
import type { SpaceRunOptions } from '../create-space.js';
import { callingForm } from './program-signature.js';
import { formatSavedName, SAVED_MODULE_PREFIX, savedModule, type SavedName } from './saved-names.js';
import { listSavedNames, readSavedProgram, savedDirectory, type SavedProgram } from './saved-store.js';

declare module '../../core/manifest.js' {
  interface CapabilityOrigins {
    /** A group of saved programs: `saved/<group>/`. */
    saved: { group: string };
  }
}

/** The kind of a saved program's origin. */
export const SAVED_SOURCE_KIND = 'saved';

/** How many saved programs may be running inside one another (a program calling one that calls one …). */
export const MAX_SAVED_DEPTH = 4;

/** Runs a program in the space the source belongs to (`Space.run`). */
export type SavedProgramRunner = (code: string, options: SpaceRunOptions) => Promise<RunResult>;

/** The saved programs' source; `attach` hands it the space whose sandbox its calls run in. */
export interface SavedProgramsSource extends CapabilitySource {
  readonly kind: typeof SAVED_SOURCE_KIND;
  /** The folder it reads (`saved/` beside the config). */
  readonly directory: string;
  attach(run: SavedProgramRunner): void;
}

/**
 * The access of a saved program's run: the caller's (or every function, when the caller's run was
 * not narrowed), and the chain of saved programs it runs inside, which bounds nesting and refuses
 * recursion.
 */
class SavedRunAccess implements CallAccess {
  readonly scope: string;
  constructor(
    readonly outer: CallAccess | undefined,
    readonly chain: readonly string[],
  ) {
    this.scope = outer?.scope ?? `saved program ${chain.at(-1) ?? ''}`;
  }
  allows(capability: string, fn: string): boolean {
    return this.outer === undefined || this.outer.allows(capability, fn);
  }
}

export function createSavedSource(config: Pick<ResolvedConfig, 'root'>): SavedProgramsSource {
  const directory = savedDirectory(config.root);
  let runner: SavedProgramRunner | undefined;
  return {
    kind: SAVED_SOURCE_KIND,
    directory,
    attach(run) {
      runner = run;
    },
    async discover(context) {
      const { names, failures } = await listSavedNames(directory);
      const groups = new Map<string, SavedName[]>();
      for (const name of names) groups.set(name.group, [...(groups.get(name.group) ?? []), name]);
      const loaded = await Promise.all(
        [...groups].map(([group, members]) =>
          context.load(`saved/${group}`, async () => [
            savedCapability(group, await Promise.all(members.map((name) => readSavedProgram(directory, name)))),
          ]),
        ),
      );
      return {
        capabilities: loaded.flatMap((raws) => raws ?? []),
        failures: failures.map((failure) => ({ source: path.relative(config.root, failure.file), message: failure.message })),
      };
    },
    connect: async () => savedBackend(directory, () => runner),
    describe: (origin) => `saved/${(origin as { group: string }).group}`,
    title: (origin) => `saved programs "${(origin as { group: string }).group}"`,
    secrets: () => [],
    async inputFiles() {
      const groups = await readdir(directory, { withFileTypes: true }).catch(() => []);
      const files = await Promise.all(
        groups
          .filter((entry) => entry.isDirectory())
          .map(async (group) =>
            (await readdir(path.join(directory, group.name)))
              .filter((file) => (file.endsWith('.ts') || file.endsWith('.json')) && !file.startsWith('.'))
              .map((file) => path.join(directory, group.name, file)),
          ),
      );
      return files.flat().sort();
    },
  };
}

/** The module of one group: its functions typed by the programs' saved schemas, described with what they call and where they came from. */
function savedCapability(group: string, programs: SavedProgram[]): RawCapability {
  return {
    name: savedModule(group),
    module: savedModule(group),
    description: `Programs saved as functions (saved/${group}/); each runs in the sandbox, its calls approved and limited one by one.`,
    source: { kind: SAVED_SOURCE_KIND, group },
    config: {},
    functions: programs.map(({ meta }): RawFunction => {
      const { origin } = meta;
      const from = [`saved ${origin.savedAt.slice(0, 10)} by ${origin.savedBy}`, origin.runId ? `from run ${origin.runId}` : undefined];
      const calls = meta.signature.calls.length === 0 ? 'calls no capability' : `calls ${meta.signature.calls.join(', ')}`;
      return {
        toolName: meta.name,
        description: [meta.description, `Saved program (${from.filter(Boolean).join(', ')}); ${calls}.`].filter(Boolean).join('\n'),
        inputSchema: meta.inputSchema,
        ...(meta.outputSchema ? { outputSchema: meta.outputSchema } : {}),
        resultKind: 'value',
      };
    }),
  };
}

/** Error codes of a saved program's run passed on as they are: what the host decided about a call inside it. */
const PASSED_ON = new Set<string>(['APPROVAL_DENIED', 'ACCESS_DENIED', 'CALLER_NOT_ALLOWED', 'RATE_LIMITED', 'CANCELLED', 'TIMEOUT']);

function savedBackend(directory: string, runnerOf: () => SavedProgramRunner | undefined): Backend {
  return {
    async call(call) {
      const saved: SavedName = { group: call.capability.module.slice(SAVED_MODULE_PREFIX.length), name: call.function.toolName };
      const label = formatSavedName(saved);
      const target = { capability: call.capability.module, function: call.function.name };
      const outer = call.context.access;
      const chain = outer instanceof SavedRunAccess ? outer.chain : [];
      if (chain.includes(label)) {
        throw new ToolCallError(
          'TOOL_FAILED',
          `saved program ${label} calls itself (${[...chain, label].join(' → ')}); saved programs may not recurse`,
          target,
        );
      }
      if (chain.length >= MAX_SAVED_DEPTH) {
        throw new ToolCallError(
          'TOOL_FAILED',
          `saved program ${label} would run ${chain.length + 1} saved programs deep (${[...chain, label].join(' → ')}); at most ${MAX_SAVED_DEPTH} may run inside one another`,
          target,
        );
      }
      const run = runnerOf();
      if (run === undefined) {
        throw new ToolCallError('SERVER_UNAVAILABLE', `saved program ${label} cannot run: its source is not attached to a space`, target);
      }
      const program = await readSavedProgram(directory, saved).catch((error: Error) => {
        throw new ToolCallError('TOOL_FAILED', error.message, target);
      });
      const access = new SavedRunAccess(outer instanceof SavedRunAccess ? outer.outer : outer, [...chain, label]);
      refuseWhatAccessRefuses(label, program.meta.signature.calls, access.outer, target);
      return runSaved(run, program, call, access);
    },
    close: async () => {},
  };
}

/**
 * Refuses a saved program importing a function the caller may not call, before it runs (a clearer
 * answer than the bridge's refusal of its first call, which stays in force for every call it makes).
 */
function refuseWhatAccessRefuses(
  label: string,
  calls: readonly string[],
  access: CallAccess | undefined,
  target: { capability: string; function: string },
): void {
  if (access === undefined) return;
  for (const id of calls) {
    const dot = id.lastIndexOf('.');
    const [module, fn] = [id.slice(0, dot), id.slice(dot + 1)];
    if (fn !== '*' && !access.allows(module, fn)) {
      throw new ToolCallError(
        'ACCESS_DENIED',
        `${id} is not available to ${access.scope}, and saved program ${label} calls it: saving a program grants nothing`,
        target,
      );
    }
  }
}

/**
 * One run of a saved program for `call`. The caller's clock keeps running (its timeout bounds the saved
 * run too, which ends with the caller's signal), so a saved call waiting for a sandbox slot cannot hang.
 */
async function runSaved(run: SavedProgramRunner, program: SavedProgram, call: BackendCall, access: SavedRunAccess): Promise<unknown> {
  const label = formatSavedName(program.meta);
  const target = { capability: call.capability.module, function: call.function.name };
  const result = await run(callingForm(program.source, program.meta.signature, call.args), {
    access,
    // The caller's run id: approvals asked inside reach whoever answers the caller's (serve routes them by run).
    runId: call.context.runId,
    check: false,
    signal: call.context.signal,
    // The caller's session-state scope, as the host set it (absent: none): the saved program's state is the caller's.
    ...(call.context.session === undefined ? {} : { session: call.context.session }),
    ...(call.traceparent ? { traceparent: call.traceparent } : {}),
  });
  if (result.success) return result.result;
  const error = result.error;
  const where = error?.line === undefined ? '' : ` (${path.basename(program.path)}, line ${error.line})`;
  const code = (error && PASSED_ON.has(error.code) ? error.code : result.timedOut ? 'TIMEOUT' : 'TOOL_FAILED') as ToolCallErrorCode;
  throw new ToolCallError(code, `saved program ${label} failed${where}: ${error?.message ?? 'the run failed'}`, target, {
    details: { savedProgram: label, ...(error ? { code: error.code } : {}) },
  });
}
