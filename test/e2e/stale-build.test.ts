// A source that fails to build keeps its previous module; the user is told so, at build time and at
// every run that would use it, instead of the old module running without a word. And a run that has to
// build first says so, rather than being silent while it builds. serve (once, at start) and task (before
// the task) warn the same way, with the function run uses.
import { copyFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

function cli(args: string[], cwd: string) {
  return execa(process.execPath, [BIN, ...args], { cwd, env: {}, reject: false, timeout: 120_000, stdin: 'ignore' });
}

const STALE_WARNING =
  /^warning: @capabilities\/openapi-pets is stale: openapi:pets failed to build \(.*petstore\.yaml.*\); this run uses its module from the last good build/m;

const PROGRAM = `import { pets } from '@capabilities/openapi-pets';
export default typeof pets.findPetsByStatus;
`;

describe('a source that fails to build', { timeout: 300_000 }, () => {
  let root: string;

  beforeAll(async () => {
    root = await makeTempDir('failed-source');
    await copyFile(path.join(REPO, 'sources/openapi/__fixtures__/petstore.yaml'), path.join(root, 'petstore.yaml'));
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({ openapi: { pets: { spec: './petstore.yaml', baseUrl: 'http://127.0.0.1:9/' } } }),
    );
    await writeFile(path.join(root, 'program.ts'), PROGRAM);
  });

  it('a first run builds, and says so on stderr', async () => {
    const run = await cli(['run', 'program.ts'], root);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^building capabilities…$/m);
    expect(run.stdout.trim()).toBe('function');
    expect(run.stderr).not.toMatch(/^warning:/m);
    // Built now: the next run does not build again.
    const again = await cli(['run', 'program.ts'], root);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/building capabilities/);
  });

  it('is named at build time, with its previous module kept and called stale', async () => {
    await rename(path.join(root, 'petstore.yaml'), path.join(root, 'moved.yaml'));
    const build = await cli(['capabilities', 'build'], root);
    expect(build.exitCode).toBe(1);
    expect(build.stderr).toMatch(/openapi:pets\s+FAILED: .*petstore\.yaml/);
    expect(build.stderr).toMatch(
      /openapi:pets: its module @capabilities\/openapi-pets from the last good build is kept: programs still run it, stale, until this source builds again/,
    );
  });

  it('is warned of at run time, naming the stale module and its source', async () => {
    const run = await cli(['run', 'program.ts'], root);
    expect(run.exitCode, run.stderr).toBe(0); // the old module still works
    expect(run.stdout.trim()).toBe('function');
    expect(run.stderr).toMatch(STALE_WARNING);
  });

  it('is warned of by serve once at start, on stderr, and its old module still serves', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--cwd', root],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'stale-build', version: '1' });
    try {
      await client.connect(transport);
      const result = await client.callTool({ name: 'execute_code', arguments: { code: PROGRAM } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('function');
      // The space opens (and the warning is written) before the server answers; the pipe may lag behind.
      await expect.poll(() => stderr, { timeout: 30_000 }).toMatch(STALE_WARNING);
      expect(stderr.match(/^warning: /gm)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });

  it('is warned of by task on stderr before the task starts (here the model is unreachable)', async () => {
    const task = await cli(['task', 'count the pets', '--base-url', 'http://127.0.0.1:9/v1'], root);
    expect(task.exitCode, task.stderr).toBe(2);
    expect(task.stderr).toMatch(STALE_WARNING);
    expect(task.stderr.indexOf('warning: @capabilities/openapi-pets is stale')).toBeLessThan(task.stderr.indexOf('agent-spaces: '));
  });

  it('is no longer warned of once the source builds again', async () => {
    await rename(path.join(root, 'moved.yaml'), path.join(root, 'petstore.yaml'));
    const build = await cli(['capabilities', 'build'], root);
    expect(build.exitCode, build.stderr).toBe(0);
    expect(build.stderr).not.toMatch(/ is kept| stale/);
    const run = await cli(['run', 'program.ts'], root);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/^warning:/m);
  });
});
