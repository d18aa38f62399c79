/**
 * `agent-spaces doctor`: checks what this installation can run programs with — the Node version, each
 * isolated-vm copy and why it does not load, QuickJS, --no-node-snapshot — says what `auto` picks, and
 * what to do to get the faster engine.
 */
import { engineStatus, hasNoNodeSnapshot, selectEngine, type EngineSelection, type EngineStatus } from '../../runtime/index.js';
import { printJson, printText } from '../output.js';

export interface DoctorReport {
  node: { version: string; abi: string; platform: string; noNodeSnapshot: boolean };
  engines: { 'isolated-vm': EngineStatus; quickjs: EngineStatus };
  auto: { worker: EngineSelection; inProcess: EngineSelection };
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
  const [isolatedVm, quickjs] = await Promise.all([engineStatus('isolated-vm'), engineStatus('quickjs')]);
  const [worker, inProcess] = await Promise.all([selectEngine('auto', 'worker'), selectEngine('auto', 'in-process')]);
  const node = {
    version: process.versions.node,
    abi: process.versions.modules,
    platform: `${process.platform}-${process.arch}`,
    noNodeSnapshot: hasNoNodeSnapshot(),
  };
  return {
    node,
    engines: { 'isolated-vm': isolatedVm, quickjs },
    auto: { worker, inProcess },
    advice: adviceFor(isolatedVm, quickjs),
    ok: isolatedVm.available || quickjs.available,
  };
}

function adviceFor(isolatedVm: EngineStatus, quickjs: EngineStatus): string[] {
  const advice: string[] = [];
  const major = Number(process.versions.node.split('.')[0]);
  if (!isolatedVm.available) {
    const fits: Record<number, string> = {
      20: 'Node 20: isolated-vm needs a compile: npm install isolated-vm@5 with its install script allowed (python3, make and a C++ compiler); or use Node 22+, where a prebuilt binary exists',
      22: 'Node 22: npm install isolated-vm@6 (prebuilt binary for Node 22), or isolated-vm@5 compiled from source',
      24: 'Node 24: npm install isolated-vm@7 or isolated-vm@6 (prebuilt binaries for Node 24)',
      26: 'Node 26: npm install isolated-vm@7 (prebuilt binary for Node 26)',
    };
    advice.push(
      fits[major] ??
        `Node ${process.versions.node}: no isolated-vm major is built for this line (they support the even LTS lines 20-26); use an LTS line for the faster engine`,
    );
    advice.push(
      quickjs.available
        ? 'until then programs run on QuickJS (slower at computing, same contract)'
        : 'and QuickJS does not load either: no program can run',
    );
  }
  if (!quickjs.available)
    advice.push(
      `QuickJS does not load (${quickjs.detail}): reinstall agent-spaces so that its dependency @jitl/quickjs-ng-wasmfile-release-sync is present`,
    );
  if (isolatedVm.available && !hasNoNodeSnapshot()) {
    advice.push(
      'in-process isolation with isolated-vm needs node --no-node-snapshot (the agent-spaces command adds it; for your own scripts set NODE_OPTIONS=--no-node-snapshot); worker isolation does not',
    );
  }
  return advice;
}

function formatReport(report: DoctorReport): string {
  const mark = (ok: boolean): string => (ok ? 'ok ' : '-- ');
  const lines = [
    `node        ${report.node.version} (ABI ${report.node.abi}, ${report.node.platform}), --no-node-snapshot: ${report.node.noNodeSnapshot ? 'yes' : 'no'}`,
    `isolated-vm ${report.engines['isolated-vm'].available ? report.engines['isolated-vm'].detail : 'not available'}`,
    ...report.engines['isolated-vm'].attempts.map(
      (attempt) =>
        `  ${mark(attempt.ok)}${attempt.candidate}${attempt.version === undefined ? '' : ` ${attempt.version}`}${attempt.ok ? ' loads' : `: ${attempt.reason}`}`,
    ),
    `quickjs     ${report.engines.quickjs.available ? report.engines.quickjs.detail : `not available: ${report.engines.quickjs.detail}`}`,
    `auto        worker isolation: ${report.auto.worker.engine} (${report.auto.worker.reason})`,
    `            in-process: ${report.auto.inProcess.engine} (${report.auto.inProcess.reason})`,
  ];
  if (report.advice.length > 0) lines.push('', 'what to do:', ...report.advice.map((line) => `  - ${line}`));
  return lines.join('\n');
}
