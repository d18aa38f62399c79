import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  NOOP_TRACER,
  createBridge,
  loadBuiltCapabilities,
  loadTracer,
  type Bridge,
  type CallJournal,
  type Tracer,
} from '../bridge/index.js';
import { buildCapabilities, isBuildStale, type BuildProgressEvent, type BuildResult, type Catalog } from '../compiler/index.js';
import { hasSelections, loadConfig, loadRegistry, selectFromRegistry, type Registry, type ResolvedConfig } from '../config/index.js';
import {
  BUILD_LAYOUT,
  callerAllowed,
  sourceLabel,
  sourceOfKind,
  titleOf,
  ToolCallError,
  type ApprovalHandler,
  type Backend,
  type BridgeEventListener,
  type CallAccess,
  type CallContext,
  type CapabilityOrigin,
  type CapabilitySpec,
  type Diagnostic,
  type ResultMode,
  type RunLog,
  type RunResult,
  type Secret,
} from '../core/index.js';
import {
  createSandbox,
  createTypeChecker,
  type EngineChoice,
  type RunLimits,
  type Sandbox,
  type SandboxPool,
  type TypeChecker,
} from '../runtime/index.js';
import { secretsOfConfig, type CapabilitySource } from '../sources/index.js';
import { defaultSources } from './default-sources.js';
import { stdWorkspace } from './std-source.js';
import { connectSources } from './connect-sources.js';
import { spaceEngineChoice } from './engine-choice.js';
import { createTaskStorage, TASK_STORAGE_MODULE, type TaskStorage } from './task-storage.js';
import { attachSavedPrograms } from './saved-programs/index.js';
import { MAX_SESSION_SCOPE_CHARS, type SessionStateBacking } from './session-state/index.js';

export interface SpaceOptions {
  /** A resolved config; otherwise one is loaded from `cwd` (and `configFile`). */
  config?: ResolvedConfig;
  cwd?: string;
  configFile?: string;
  /** Decides calls that require approval; without one they are denied. */
  approvalHandler?: ApprovalHandler;
  /** Every bridge event (tool-call-start/end, approval-required/decided). */
  onEvent?: BridgeEventListener;
  /** Overrides `config.sandbox.isolation`. */
  isolation?: 'worker' | 'thread' | 'in-process';
  /** Overrides `config.sandbox.engine` (`auto` or an engine's name, see `ENGINE_CHOICES`). */
  engine?: EngineChoice;
  /**
   * Sandbox settings for when the config sets none (e.g. `serve --http` runs one program per worker, so
   * one remote caller's computing program cannot delay or take down another caller's run; `agent-spaces
   * run` starts one worker for its one program).
   */
  sandboxDefaults?: { runsPerWorker?: number; workers?: number };
  /**
   * The capability sources this space compiles and calls: a list replaces the defaults; a function
   * receives the defaults (`defaultSources(config)` with this space's `task-storage`) and returns the
   * list, e.g. `(defaults) => [...defaults, agentSource]`. No two sources may share a kind.
   */
  sources?: readonly CapabilitySource[] | ((defaults: readonly CapabilitySource[]) => readonly CapabilitySource[]);
  /** Every approved call goes through it (a durable worker's call journal; see worker/run-journal.ts). */
  journal?: CallJournal;
  /** Where spans go; default from the config's `telemetry` or the `OTEL_*` variables (none: no tracing). */
  tracer?: Tracer;
  /**
   * Where `@capabilities/session` keeps its state (default: this process's memory); a composition root
   * with a store passes the store's `sessionState`, so every process of the store sees the same state.
   */
  sessionState?: SessionStateBacking;
  /**
   * What the config's `capabilities` selections (`mcp:slack`, `files:crm`, …) name (config/registry.ts);
   * default: the user-level registry, read only when the config selects something.
   */
  registry?: Registry;
  /** Runs in this pool's sandbox workers instead of the space's own (a host's spaces share one; see space/host). */
  sandboxPool?: SandboxPool;
}

export interface SpaceRunOptions {
  /** Type-check against the built declarations first (default true). */
  check?: boolean;
  /** The functions this run may call (default: all); the bridge refuses the rest, however they are called. */
  access?: CallAccess;
  /** Each log line as the program writes it, before any later approval of the run is asked for. */
  onLog?: (log: RunLog) => void;
  limits?: Partial<RunLimits>;
  signal?: AbortSignal;
  runId?: string;
  /** The W3C `traceparent` of the caller's span (a planner step, a serve request): the run's span is its child. */
  traceparent?: string;
  /** The sandbox engine for this run (default: the space's); the result's `engine` says which ran and why. */
  engine?: EngineChoice;
  /**
   * The run's session-state scope (`@capabilities/session`): runs given the same id share their state.
   * Absent: the run has none, and its session calls fail saying so.
   */
  session?: string;
}

/** A space: its config, build output, bridge and sandbox, wired together. */
export interface Space {
  readonly config: ResolvedConfig;
  /**
   * Every secret this space's host holds, as its sources declare them (plus the model key and the
   * store URL's credentials): what the one redactor (`createRedactor({ secrets })`) cuts out of
   * everything that leaves the host.
   */
  readonly secrets: readonly Secret[];
  /**
   * The sandbox engine this space's runs ask for (the `engine` option, else `sandbox.engine`, checked
   * when the space opens); undefined when neither says (`AGENT_SPACES_ENGINE`, else `auto`).
   */
  readonly engine: EngineChoice | undefined;
  /** Compiles every capability source into the build output. */
  build(options?: { force?: boolean; onProgress?: (event: BuildProgressEvent) => void }): Promise<BuildResult>;
  /**
   * Builds, then makes later runs and calls of a started space use the new build (its modules, and
   * backends connected for them; the sandbox pool is kept): runs and calls under way finish with the
   * bridge they started with, which closes when the last of them ends. Used after saving a program.
   */
  reload(): Promise<BuildResult>;
  /** Runs the model's TypeScript in the sandbox; builds first when there is no build output. */
  run(code: string, options?: SpaceRunOptions): Promise<RunResult>;
  /** Type-checks a program against the built declarations. */
  check(code: string): Promise<Diagnostic[]>;
  /** The built capabilities. */
  capabilities(): Promise<CapabilitySpec[]>;
  /**
   * How a sentence names where a built module comes from (`MCP server "github"`, `tools/crm.json`,
   * `standard library`), as the source of its kind titles it; the origin's label when no source of
   * this space has its kind.
   */
  titleOf(origin: CapabilityOrigin): string;
  /** The build's search index (`catalog.json`). */
  catalog(): Promise<Catalog>;
  /**
   * A direct call, outside the sandbox but through the same bridge (validation, approvals, rate limits,
   * events): `callTool('train-schedule.getSchedule', { station: 'Central' })`. Rejects with a
   * `ToolCallError` for an unknown id, bad arguments, a denial or a failed call.
   */
  callTool(
    id: string,
    args: unknown,
    options?: {
      runId?: string;
      signal?: AbortSignal;
      resultMode?: ResultMode;
      access?: CallAccess;
      traceparent?: string;
      session?: string;
    },
  ): Promise<unknown>;
  /** The space's tracer (OpenTelemetry when configured, else one that does nothing), loaded on first use. */
  tracer(): Promise<Tracer>;
  /** Which stored results a run may read through `@capabilities/task-storage` (the planner opens its own). */
  readonly taskStorage: TaskStorage;
  close(): Promise<void>;
}

/**
 * Creates a space from its config. Nothing starts until it is used: the first `run` loads the build,
 * the host side of every capability, the bridge and the sandbox pool, and keeps them for later runs.
 *
 * @example
 * const space = await createSpace({ cwd: 'my-space' });
 * const result = await space.run(`import { getWeather } from '@capabilities/get-weather'; export default await getWeather({ location: 'Tokyo' });`);
 * await space.close();
 */
export async function createSpace(options: SpaceOptions = {}): Promise<Space> {
  const config = await withSelections(
    options.config ??
      (await loadConfig({
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.configFile ? { file: options.configFile } : {}),
        ...(options.registry ? { registry: options.registry } : {}),
      })),
    options.registry,
  );
  // Stored large results of planner tasks: a host capability like std, scoped per run by the planner.
  const taskStorage = createTaskStorage();
  const defaults = defaultSources(config, {
    stdExtraTools: { [TASK_STORAGE_MODULE]: taskStorage.definition },
    ...(options.sessionState ? { sessionState: options.sessionState } : {}),
  });
  const sources = typeof options.sources === 'function' ? options.sources(defaults) : (options.sources ?? defaults);

  let ready: Promise<StartedSpace> | undefined;
  let checker: TypeChecker | undefined;
  let closed = false;
  let tracerReady: Promise<Tracer> | undefined;

  const secrets = secretsOfConfig(config, { sources });
  const engine = spaceEngineChoice(config, options.engine);
  const space: Space = {
    config,
    secrets,
    engine,
    taskStorage: taskStorage.storage,
    async build(buildOptions = {}) {
      const result = await buildCapabilities({ config, sources, ...buildOptions });
      checker = undefined; // declarations changed
      return result;
    },
    async run(code, runOptions = {}) {
      checkSessionId(runOptions.session);
      const started = await start();
      return using(started, async () => runProgram(started, await space.tracer(), config, code, runOptions));
    },
    tracer() {
      tracerReady ??= options.tracer ? Promise.resolve(options.tracer) : loadTracer(config);
      return tracerReady;
    },
    async check(code) {
      await ensureBuilt();
      checker ??= createTypeChecker({ outDir: config.outDir });
      return checker.check(code);
    },
    async capabilities() {
      await ensureBuilt();
      return loadBuiltCapabilities(config.outDir);
    },
    titleOf(origin) {
      const source = sourceOfKind(sources, origin.kind);
      return source === undefined ? sourceLabel(origin) : titleOf(source, origin);
    },
    async catalog() {
      await ensureBuilt();
      return JSON.parse(await readFile(path.join(config.outDir, BUILD_LAYOUT.catalogFile), 'utf8')) as Catalog;
    },
    async callTool(id, args, callOptions = {}) {
      const tool = parseToolId(id);
      checkSessionId(callOptions.session);
      const started = await start();
      return using(started, () => callThroughBridge(started.bridge, tool, args, callOptions));
    },
    async reload() {
      const result = await space.build();
      const previous = ready === undefined ? undefined : await ready.catch(() => undefined);
      if (previous !== undefined && !closed) {
        ready = startSpace(config, sources, spaceOptions, secrets, () => space.tracer(), previous.sandbox);
        ready.catch(() => {
          ready = undefined;
        });
        retired.add(previous);
        if (previous.users === 0) void closeBridgeOf(previous);
      }
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ready) {
        const started = await ready.catch(() => undefined);
        if (started) await Promise.all([started.sandbox.close(), closeBridgeOf(started)]);
      }
      await Promise.all([...retired].map(closeBridgeOf));
      // Spans still in the exporter's batch are sent before the space goes.
      if (tracerReady) await (await tracerReady.catch(() => NOOP_TRACER)).shutdown();
    },
  };

  /**
   * Builds when there is no build output or, the first time the space is used, when the config or a
   * capability file changed since the last build. Later changes need an explicit `build()`: a running
   * space keeps the capabilities it started with.
   */
  let freshnessChecked = false;
  async function ensureBuilt(): Promise<void> {
    const stale = freshnessChecked ? !existsSync(path.join(config.outDir, BUILD_LAYOUT.manifestFile)) : await isBuildStale(config, sources);
    freshnessChecked = true;
    if (stale) await space.build();
  }

  // A bridge replaced by reload() closes when the last run or call using it ends (or with the space).
  const retired = new Set<StartedSpace>();
  const closeBridgeOf = async (started: StartedSpace): Promise<void> => {
    retired.delete(started);
    await Promise.all([started.bridge.close(), started.closeBackends()]);
  };
  async function using<T>(started: StartedSpace, use: () => Promise<T>): Promise<T> {
    started.users += 1;
    try {
      return await use();
    } finally {
      started.users -= 1;
      if (started.users === 0 && retired.has(started)) void closeBridgeOf(started);
    }
  }
  attachSavedPrograms(sources, (code, runOptions) => space.run(code, runOptions));

  const spaceOptions = { ...options, ...(engine === undefined ? {} : { engine }) };
  function start(): Promise<StartedSpace> {
    ready ??= (async () => {
      await ensureBuilt();
      return startSpace(config, sources, spaceOptions, secrets, () => space.tracer());
    })();
    ready.catch(() => {
      ready = undefined; // let a later run try again (e.g. after a build)
    });
    return ready;
  }

  return space;
}

/** What the first run or call of a space starts: the bridge over the built modules' backends, and the sandbox. */
interface StartedSpace {
  bridge: Bridge;
  sandbox: Sandbox;
  specs: CapabilitySpec[];
  /** The backends of the modules, for {@link Backend.prepare} hints. */
  backends: Record<string, Backend>;
  closeBackends: () => Promise<void>;
  /** Runs and calls using this bridge now (see `Space.reload`). */
  users: number;
}

/** Loads the build, connects every source's backend, and creates the bridge and the sandbox pool over them. */
async function startSpace(
  config: ResolvedConfig,
  sources: readonly CapabilitySource[],
  options: SpaceOptions,
  secrets: readonly Secret[],
  loadSpaceTracer: () => Promise<Tracer>,
  /** The sandbox pool of the bridge this one replaces (`Space.reload`). */
  keptSandbox?: Sandbox,
): Promise<StartedSpace> {
  await mkdir(stdWorkspace(config), { recursive: true }); // std fs works from the first run
  const specs = await loadBuiltCapabilities(config.outDir);
  const { backends, close: closeBackends } = await connectSources(sources, specs, config);
  const tracer = await loadSpaceTracer();
  const bridge = createBridge({
    capabilities: specs,
    backends,
    ...(tracer.enabled ? { tracer: tracer.calls } : {}),
    ...(options.approvalHandler ? { approvalHandler: options.approvalHandler } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    secrets,
    ...(options.journal ? { journal: options.journal } : {}),
    // JSON text results of MCP tools without an output schema teach their result type (<outDir>/inferred/).
    learnResultTypes: { outDir: config.outDir },
  });
  const workers = config.sandbox.workers ?? options.sandboxDefaults?.workers;
  const runsPerWorker = config.sandbox.runsPerWorker ?? options.sandboxDefaults?.runsPerWorker;
  const engine = options.engine;
  const sandbox =
    keptSandbox ??
    options.sandboxPool?.sandbox({ outDir: config.outDir, limits: sandboxLimits(config) }) ??
    createSandbox({
      outDir: config.outDir,
      isolation: options.isolation ?? config.sandbox.isolation ?? defaultIsolation(),
      ...(engine === undefined ? {} : { engine }),
      ...(workers ? { workers } : {}),
      ...(runsPerWorker ? { runsPerWorker } : {}),
      limits: sandboxLimits(config),
    });
  return { bridge, sandbox, specs, backends, closeBackends, users: 0 };
}

/** A resolved config given as is, with what its `capabilities` still select from a registry copied in. */
async function withSelections(config: ResolvedConfig, registry: Registry | undefined): Promise<ResolvedConfig> {
  if (!hasSelections(config.capabilities)) return config;
  return selectFromRegistry(config, registry ?? (await loadRegistry()));
}

/** Runs the model's program in the space's sandbox, its calls going through the bridge, in a span of its own. */
async function runProgram(
  { bridge, sandbox, specs, backends }: StartedSpace,
  tracer: Tracer,
  config: ResolvedConfig,
  code: string,
  runOptions: SpaceRunOptions,
): Promise<RunResult> {
  const limits = { ...sandboxLimits(config), ...runOptions.limits };
  const { access } = runOptions;
  const runId = runOptions.runId ?? randomUUID();
  const span = tracer.startSpan('execute_code', {
    ...(runOptions.traceparent === undefined ? {} : { parent: runOptions.traceparent }),
    attributes: { 'agent_spaces.run_id': runId, 'agent_spaces.code_bytes': Buffer.byteLength(code) },
  });
  const traced = span.traceparent === undefined ? {} : { traceparent: span.traceparent };
  const session = runOptions.session === undefined ? {} : { session: runOptions.session };
  // Every call of a program is a call by code, whatever the program did to reach it (callers). The
  // runtime passes one context object per run: its extended copy is made once, not per call.
  let seen: CallContext | undefined;
  let extended: CallContext | undefined;
  const extend = (context: CallContext): CallContext => {
    if (context !== seen || extended === undefined) {
      extended = { ...context, caller: 'code', ...(access === undefined ? {} : { access }), ...session, ...traced };
      seen = context;
    }
    return extended;
  };
  // Before the run starts (its compile and check): a run whose signal ended already hints nothing.
  if (runOptions.signal?.aborted !== true) prepareImported(code, specs, backends, access);
  const result = await sandbox.run(code, {
    onCall: (params, context) => bridge.handleEncoded(params, extend(context)),
    // A narrowed run's "did you mean" names only modules and functions it may call.
    ...(access === undefined ? {} : narrowedView(specs, access)),
    ...(runOptions.onLog ? { onLog: runOptions.onLog } : {}),
    runId,
    check: runOptions.check ?? true,
    limits,
    ...(runOptions.signal ? { signal: runOptions.signal } : {}),
    ...(runOptions.engine === undefined ? {} : { engine: runOptions.engine }),
  });
  span.setAttributes({
    'agent_spaces.calls': result.calls,
    'agent_spaces.timed_out': result.timedOut,
    'agent_spaces.success': result.success,
  });
  span.end(result.success ? undefined : { code: result.error?.code ?? 'RUN_FAILED', message: result.error?.code ?? 'the run failed' });
  return result;
}

/** A session id the host gives a run: a non-empty string of at most MAX_SESSION_SCOPE_CHARS characters. */
function checkSessionId(session: unknown): void {
  if (session === undefined) return;
  if (typeof session !== 'string' || session === '' || session.length > MAX_SESSION_SCOPE_CHARS) {
    throw new TypeError(
      `the session option must be a non-empty string of at most ${MAX_SESSION_SCOPE_CHARS} characters (got ${typeof session === 'string' ? `${session.length} characters` : typeof session})`,
    );
  }
}

/** `<module>.<function>` split at its last dot; `UNKNOWN_FUNCTION` for anything else. */
function parseToolId(id: string): { capability: string; function: string } {
  const dot = id.lastIndexOf('.');
  if (dot <= 0 || dot === id.length - 1) {
    throw new ToolCallError('UNKNOWN_FUNCTION', `"${id}" is not a tool id: use "<module>.<function>", e.g. "train-schedule.getSchedule"`, {
      capability: id,
      function: '',
    });
  }
  return { capability: id.slice(0, dot), function: id.slice(dot + 1) };
}

/** A direct call through the bridge; nothing of it keeps running once it is answered. */
async function callThroughBridge(
  bridge: Bridge,
  tool: { capability: string; function: string },
  args: unknown,
  callOptions: Parameters<Space['callTool']>[2] = {},
): Promise<unknown> {
  const controller = new AbortController();
  const signal = callOptions.signal ? AbortSignal.any([callOptions.signal, controller.signal]) : controller.signal;
  try {
    return await bridge.handle(
      {
        ...tool,
        args: args ?? {},
        ...(callOptions.resultMode ? { resultMode: callOptions.resultMode } : {}),
      },
      {
        runId: callOptions.runId ?? randomUUID(),
        signal,
        caller: 'direct',
        ...(callOptions.access ? { access: callOptions.access } : {}),
        ...(callOptions.traceparent ? { traceparent: callOptions.traceparent } : {}),
        ...(callOptions.session === undefined ? {} : { session: callOptions.session }),
      },
    );
  } finally {
    controller.abort(); // the call is over: nothing of it may keep running
  }
}

/** `@capabilities/<module>` as a program names it in an import (static or dynamic) or an export … from. */
const CAPABILITY_SPECIFIER = /["'`]@capabilities\/([a-z0-9][a-z0-9-]*)["'`]/g;

/**
 * Tells the backends of the modules a program names that their calls are coming (a tool file is then
 * imported while the program is compiled, checked and started, not at its first call). Read from the
 * text, before any check: a name in a comment or a string costs an early import at most. Only modules
 * the program may call are hinted (a narrowed run's access, functions for direct callers only left out).
 */
function prepareImported(
  code: string,
  specs: readonly CapabilitySpec[],
  backends: Record<string, Backend>,
  access: CallAccess | undefined,
): void {
  if (!code.includes('@capabilities/')) return;
  const named = new Set<string>();
  for (const match of code.matchAll(CAPABILITY_SPECIFIER)) named.add(match[1] as string);
  for (const spec of specs) {
    if (!named.has(spec.module)) continue;
    // Only a module with a function a program may call: not only direct callers', and within a narrowed run's access.
    const callable = spec.functions.some(
      (fn) => callerAllowed(fn.callers ?? spec.config.callers, 'code') && (access === undefined || access.allows(spec.module, fn.name)),
    );
    if (!callable) continue;
    try {
      backends[spec.module]?.prepare?.(spec);
    } catch {
      // A hint only: the call reports what is wrong.
    }
  }
}

/**
 * What a narrowed run's type-check may name: the modules with a function it may call, and the
 * functions it may not call, which "did you mean" never suggests (a name some allowed function also
 * has stays suggestible).
 */
function narrowedView(specs: readonly CapabilitySpec[], access: CallAccess): { visibleModules: string[]; hiddenFunctions: string[] } {
  const allowed = new Set<string>();
  const refused = new Set<string>();
  const visibleModules: string[] = [];
  for (const spec of specs) {
    let visible = false;
    for (const fn of spec.functions) {
      if (access.allows(spec.module, fn.name)) {
        allowed.add(fn.name);
        visible = true;
      } else {
        refused.add(fn.name);
      }
    }
    if (visible) visibleModules.push(spec.module);
  }
  return { visibleModules, hiddenFunctions: [...refused].filter((name) => !allowed.has(name)) };
}

function sandboxLimits(config: ResolvedConfig): Partial<RunLimits> {
  const { timeoutMs, memoryLimitMb, maxOutputBytes, maxArgumentBytes, maxCalls, maxConcurrentCalls } = config.sandbox;
  return {
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(memoryLimitMb ? { memoryLimitMb } : {}),
    ...(maxOutputBytes ? { maxOutputBytes } : {}),
    ...(maxArgumentBytes ? { maxArgumentBytes } : {}),
    ...(maxCalls ? { maxCalls } : {}),
    ...(maxConcurrentCalls ? { maxConcurrentCalls } : {}),
  };
}

/**
 * Worker processes where the host is Node (and Deno, whose node:child_process keeps the worker's fd 3);
 * in-process under Bun, whose sandbox worker process ends before its first frame (a net.Socket on an
 * inherited fd 3 closes at once there). Only QuickJS loads under Bun, and it runs in-process with every
 * limit (its interrupt handler bounds each entry by the run's time).
 */
function defaultIsolation(): 'worker' | 'in-process' {
  return typeof (process.versions as Record<string, string | undefined>)['bun'] === 'string' ? 'in-process' : 'worker';
}
