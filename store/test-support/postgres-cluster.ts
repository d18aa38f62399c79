// A private PostgreSQL cluster for tests and benchmarks: initdb in a temporary folder, pg_ctl start on
// a free loopback port, removed afterwards. PostgreSQL refuses to run as root, so as root the cluster
// runs as `nobody` (the folder is handed to it). No PostgreSQL on the machine is an error, never a skip.
import { execFile, type ExecFileOptions } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication, loopback only). */
  url: string;
  /** A fresh database of this cluster, e.g. one per test. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** Where Debian puts the server binaries when they are not on PATH. */
function findBinaries(): { initdb: string; pgCtl: string } {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (folder !== '' && existsSync(path.join(folder, 'initdb')) && existsSync(path.join(folder, 'pg_ctl'))) {
      return { initdb: path.join(folder, 'initdb'), pgCtl: path.join(folder, 'pg_ctl') };
    }
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian) ? readdirSync(debian).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = path.join(debian, version, 'bin');
    if (existsSync(path.join(bin, 'initdb'))) return { initdb: path.join(bin, 'initdb'), pgCtl: path.join(bin, 'pg_ctl') };
  }
  throw new Error(
    'PostgreSQL is not installed: initdb and pg_ctl are neither on PATH nor in /usr/lib/postgresql/<version>/bin (on Debian: apt-get install -y postgresql)',
  );
}

/** The uid and gid of `nobody`, for running the server when this process is root. */
function nobody(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('nobody:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error('running as root, and there is no user "nobody" to run PostgreSQL as (it refuses to run as root)');
  return { uid: Number(uid), gid: Number(gid) };
}

function run(file: string, args: string[], options: ExecFileOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, options, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(file)} ${args.join(' ')} failed: ${String(stderr).trim() || error.message}`));
      else resolve(String(stdout));
    });
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ClusterOptions {
  /**
   * Start it as a hot standby with no primary (standby.signal): it stays in recovery, answers
   * read-only queries and refuses what a standby may not do (DDL, LISTEN). No createDatabase then.
   */
  standby?: boolean;
}

export async function startPostgresCluster(clusterOptions: ClusterOptions = {}): Promise<PostgresCluster> {
  const { initdb, pgCtl } = findBinaries();
  const folder = await mkdtemp(path.join(tmpdir(), 'agent-spaces-pg-'));
  const user = process.getuid?.() === 0 ? nobody() : undefined;
  if (user) await chown(folder, user.uid, user.gid);
  const options: ExecFileOptions = { cwd: folder, ...(user ? { uid: user.uid, gid: user.gid } : {}), env: { ...process.env, LC_ALL: 'C' } };
  const data = path.join(folder, 'data');
  await run(initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], options);
  if (clusterOptions.standby === true) await writeFile(path.join(data, 'standby.signal'), '');
  const port = await freePort();
  // fsync off: a test cluster need not survive a power cut, and tests write a lot.
  const serverOptions = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300`;
  await run(pgCtl, ['-D', data, '-o', serverOptions, '-l', path.join(folder, 'server.log'), '-w', '-t', '120', 'start'], options);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  return {
    url,
    async createDatabase(name) {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await run(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop'], options).catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
