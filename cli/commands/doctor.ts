/**
 * `agent-spaces doctor`: checks what this installation can run programs with — the Node version, each
 * registered sandbox engine (every copy it tried and why it does not load), --no-node-snapshot — says
 * what `auto` picks, whether the user's daemon serves `run`, and what to do to get the faster engine. It names no engine: each engine says
 * what to do about itself (`EngineDefinition.remedy`, `placementProblem`).
 */
import {
  checkEngines,
  hasNoNodeSnapshot,
  selectEngine,
  type EngineCheck,
  type EngineSelection,
  type EngineStatus,
} from '../../runtime/index.js';
import { printJson, printText } from '../output.js';

export interface DoctorReport {
  node: { version: string; abi: string; platform: string; noNodeSnapshot: boolean };
  /** Every registered engine by name, in `auto`'s order. */
  engines: Record<string, EngineStatus>;
  auto: { worker: EngineSelection; inProcess: EngineSelection };
  /** The user's daemon for this Node and install (`agent-spaces daemon start`): whether `run` starts in a warm process. */
  daemon: { running: boolean; detail: string; pid?: number };
  advice: string[];
  ok: boolean;
}

export async function doctorCommand(options: { json: boolean }): Promise<number> {
  const report = await checkInstallation();
  if (options.json) printJson(report);
  else printText(formatReport(report));
  return report.ok ? 0 : 1;
}

export async function checkInstallation(): Promise<DoctorReport> {
  const checks = await checkEngines();
  const [worker, inProcess, daemon] = await Promise.all([
    selectEngine('auto', 'worker'),
    selectEngine('auto', 'in-process'),
    import('./daemon.js').then(({ daemonState }) => daemonState()),
  ]);
  const node = {
    version: process.versions.node,
    abi: process.versions.modules,
    platform: `${process.platform}-${process.arch}`,
    noNodeSnapshot: hasNoNodeSnapshot(),
  };
  return {
    node,
    engines: Object.fromEntries(checks.map((check) => [check.status.engine, check.status])),
    auto: { worker, inProcess },
    daemon,
    advice: adviceFor(checks, worker),
    ok: checks.some((check) => check.status.available),
  };
}

/**
 * What to do: for each engine that does not load, its remedy and what runs until then (the first
 * engine of `auto`'s order is the fastest); for each that loads, why it cannot run in-process, if so.
 */
function adviceFor(checks: readonly EngineCheck[], worker: EngineSelection): string[] {
  const advice: string[] = [];
  const anyAvailable = checks.some((check) => check.status.available);
  for (const [index, check] of checks.entries()) {
    if (check.status.available) continue;
    advice.push(...check.remedy);
    if (index === 0)
      advice.push(
        anyAvailable
          ? `until then programs run on ${worker.engine} (slower at computing, same contract)`
          : `and no other engine loads either: no program can run`,
      );
  }
  for (const check of checks) if (check.inProcessProblem !== undefined) advice.push(check.inProcessProblem.message);
  return advice;
}

function formatReport(report: DoctorReport): string {
  const mark = (ok: boolean): string => (ok ? 'ok ' : '-- ');
  const width = Math.max(11, ...Object.keys(report.engines).map((name) => name.length));
  const engineLines = Object.values(report.engines).flatMap((status) => [
    `${status.engine.padEnd(width)} ${status.available ? status.detail : status.attempts.length > 0 ? 'not available' : `not available: ${status.detail}`}`,
    ...status.attempts.map(
      (attempt) =>
        `  ${mark(attempt.ok)}${attempt.candidate}${attempt.version === undefined ? '' : ` ${attempt.version}`}${attempt.ok ? ' loads' : `: ${attempt.reason}`}`,
    ),
  ]);
  const lines = [
    `${'node'.padEnd(width)} ${report.node.version} (ABI ${report.node.abi}, ${report.node.platform}), --no-node-snapshot: ${report.node.noNodeSnapshot ? 'yes' : 'no'}`,
    ...engineLines,
    `${'auto'.padEnd(width)} worker isolation: ${report.auto.worker.engine} (${report.auto.worker.reason})`,
    `${''.padEnd(width)} in-process: ${report.auto.inProcess.engine} (${report.auto.inProcess.reason})`,
    `${'daemon'.padEnd(width)} ${report.daemon.detail}`,
  ];
  if (report.advice.length > 0) lines.push('', 'what to do:', ...report.advice.map((line) => `  - ${line}`));
  return lines.join('\n');
}
