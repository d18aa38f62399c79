import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolCallError } from '../core/index.js';
import { createFsTool } from './fs-tool.js';
import { callTool } from './test-support/call-tool.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';

let base: string;
let root: string;
let outside: string;
let fs: ReturnType<typeof createFsTool>;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'agent-spaces-fs-'));
  root = join(base, 'workspace');
  outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret');
  fs = createFsTool({ root });
});
afterEach(async () => rm(base, { recursive: true, force: true }));

describe('std fs: confinement', () => {
  it.each(['../outside/secret.txt', 'a/../../outside/secret.txt', '../../../../etc/passwd', '..'])(
    'refuses the escape %s',
    async (path) => {
      const error = await toolCallErrorOf(callTool(fs, 'readFile', { path }));
      expect(error.code).toBe('FORBIDDEN');
      expect(error.message).toContain(`path "${path}" is refused: it is outside the workspace`);
      expect(error).toMatchObject({ capability: 'std-fs', function: 'readFile', details: { path } });
    },
  );

  it('refuses absolute paths outside the workspace and accepts those inside', async () => {
    expect((await toolCallErrorOf(callTool(fs, 'readFile', { path: join(outside, 'secret.txt') }))).code).toBe('FORBIDDEN');
    expect((await toolCallErrorOf(callTool(fs, 'writeFile', { path: '/tmp/agent-spaces-escape.txt', content: 'x' }))).code).toBe(
      'FORBIDDEN',
    );
    await writeFile(join(root, 'inside.txt'), 'hello');
    await expect(callTool(fs, 'readFile', { path: join(root, 'inside.txt') })).resolves.toBe('hello');
  });

  it('refuses symlinks that point outside, for reads and writes, dangling ones too', async () => {
    await symlink(outside, join(root, 'link'));
    await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling'));
    const read = await toolCallErrorOf(callTool(fs, 'readFile', { path: 'link/secret.txt' }));
    expect(read.code).toBe('FORBIDDEN');
    expect(read.message).toContain('symbolic link');
    expect((await toolCallErrorOf(callTool(fs, 'writeFile', { path: 'link/new.txt', content: 'x' }))).code).toBe('FORBIDDEN');
    expect((await toolCallErrorOf(callTool(fs, 'writeFile', { path: 'dangling', content: 'x' }))).code).toBe('FORBIDDEN');
    expect((await toolCallErrorOf(callTool(fs, 'list', { path: 'link' }))).code).toBe('FORBIDDEN');
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  it('refuses a path with a NUL byte as invalid, for every function, without naming the host folder', async () => {
    for (const name of ['readFile', 'exists', 'stat', 'writeFile']) {
      const error = await toolCallErrorOf(callTool(fs, name, { path: 'notes.txt\0.png', content: 'x' }));
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENTS', function: name });
      expect(error.message).toBe('path "notes.txt\\u0000.png" is refused: it contains a NUL character; file names cannot contain one');
    }
  });

  it('accepts names that merely start with two dots', async () => {
    await callTool(fs, 'writeFile', { path: '..notes.txt', content: 'hidden-ish' });
    await expect(callTool(fs, 'readFile', { path: 'sub/..data' }).catch((error: ToolCallError) => error.code)).resolves.toBe('TOOL_FAILED');
    await expect(callTool(fs, 'readFile', { path: '..notes.txt' })).resolves.toBe('hidden-ish');
  });

  it('follows symlinks that stay inside', async () => {
    await mkdir(join(root, 'real'));
    await writeFile(join(root, 'real', 'a.txt'), 'A');
    await symlink(join(root, 'real'), join(root, 'alias'));
    await expect(callTool(fs, 'readFile', { path: 'alias/a.txt' })).resolves.toBe('A');
  });
});

describe('std fs: operations', () => {
  it('refuses to read a file past maxBytes, and anything that is not a regular file (a FIFO would never end)', async () => {
    await writeFile(join(root, 'big.txt'), 'x'.repeat(2048));
    const tooBig = await toolCallErrorOf(callTool(fs, 'readFile', { path: 'big.txt', maxBytes: 1024 }));
    expect(tooBig.code).toBe('RESULT_TOO_LARGE');
    expect(tooBig.message).toBe(
      '"big.txt" has 2 KiB (2048 bytes), more than maxBytes (1024): raise maxBytes (at most 1048576) or read it in parts with offset and length',
    );
    expect(await callTool(fs, 'readFile', { path: 'big.txt', maxBytes: 4096 })).toHaveLength(2048);
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const fifo = await toolCallErrorOf(callTool(fs, 'readFile', { path: 'pipe' }));
    expect(fifo).toMatchObject({
      code: 'FORBIDDEN',
      message:
        '"pipe" is a FIFO (named pipe): std fs only works on regular files and folders (FIFOs, sockets and devices are refused); use a regular file',
    });
  });

  it('writes atomically, creating folders, and reads back', async () => {
    await expect(callTool(fs, 'writeFile', { path: 'out/report.txt', content: 'v1' })).resolves.toEqual({
      path: 'out/report.txt',
      bytes: 2,
    });
    await expect(callTool(fs, 'writeFile', { path: 'out/report.txt', content: 'version two' })).resolves.toEqual({
      path: 'out/report.txt',
      bytes: 11,
    });
    await expect(callTool(fs, 'readFile', { path: 'out/report.txt' })).resolves.toBe('version two');
    // No temporary file is left beside the target.
    expect(await readdir(join(root, 'out'))).toEqual(['report.txt']);
  });

  it('leaves the target untouched and no temporary file when the write fails', async () => {
    await mkdir(join(root, 'taken'));
    await writeFile(join(root, 'taken', 'keep.txt'), 'kept');
    const error = await toolCallErrorOf(callTool(fs, 'writeFile', { path: 'taken', content: 'x' }));
    expect(error.code).toBe('TOOL_FAILED');
    expect(await readdir(root)).toEqual(['taken']);
    expect(await readFile(join(root, 'taken', 'keep.txt'), 'utf8')).toBe('kept');
  });

  it('round-trips binary content as base64 and appends text', async () => {
    const bytes = Buffer.from([0, 255, 10, 13]).toString('base64');
    await callTool(fs, 'writeFile', { path: 'bin.dat', content: bytes, encoding: 'base64' });
    await expect(callTool(fs, 'readFile', { path: 'bin.dat', encoding: 'base64' })).resolves.toBe(bytes);
    await callTool(fs, 'appendFile', { path: 'log.txt', content: 'one\n' });
    await expect(callTool(fs, 'appendFile', { path: 'log.txt', content: 'two\n' })).resolves.toEqual({ path: 'log.txt', bytes: 4 });
    await expect(callTool(fs, 'readFile', { path: 'log.txt' })).resolves.toBe('one\ntwo\n');
  });

  it('lists, checks existence, stats and makes folders', async () => {
    await callTool(fs, 'mkdir', { path: 'a/b' });
    await writeFile(join(root, 'a', 'b', 'c.txt'), 'abc');
    await writeFile(join(root, 'z.txt'), '');
    await expect(callTool(fs, 'list', {})).resolves.toEqual([
      { name: 'a', path: 'a', type: 'directory', size: 0 },
      { name: 'z.txt', path: 'z.txt', type: 'file', size: 0 },
    ]);
    await expect(callTool(fs, 'list', { recursive: true })).resolves.toEqual([
      { name: 'a', path: 'a', type: 'directory', size: 0 },
      { name: 'b', path: 'a/b', type: 'directory', size: 0 },
      { name: 'c.txt', path: 'a/b/c.txt', type: 'file', size: 3 },
      { name: 'z.txt', path: 'z.txt', type: 'file', size: 0 },
    ]);
    await expect(callTool(fs, 'exists', { path: 'a/b/c.txt' })).resolves.toBe(true);
    await expect(callTool(fs, 'exists', { path: 'nope.txt' })).resolves.toBe(false);
    await expect(callTool(fs, 'stat', { path: 'a/b/c.txt' })).resolves.toMatchObject({ path: 'a/b/c.txt', type: 'file', size: 3 });
  });

  it('says what to do when a file is missing', async () => {
    const error = await toolCallErrorOf(callTool(fs, 'readFile', { path: 'missing.txt' }));
    expect(error.code).toBe('TOOL_FAILED');
    expect(error.message).toBe('"missing.txt" does not exist in the workspace: check the path with fs.list');
  });

  it('removes files, folders only when recursive, a symlink but never its target, and never the root', async () => {
    expect(fs.functions.remove.requiresApproval).toBe(true);
    const message = fs.functions.remove.approvalMessage;
    expect(typeof message === 'function' ? message({ path: 'old', recursive: true }) : message).toBe(
      'Delete "old" and everything in it from the workspace?',
    );
    await writeFile(join(root, 'f.txt'), 'x');
    await expect(callTool(fs, 'remove', { path: 'f.txt' })).resolves.toEqual({ path: 'f.txt', removed: true });
    await expect(callTool(fs, 'remove', { path: 'f.txt' })).resolves.toEqual({ path: 'f.txt', removed: false });
    await mkdir(join(root, 'dir'));
    expect((await toolCallErrorOf(callTool(fs, 'remove', { path: 'dir' }))).message).toContain('pass recursive: true');
    await expect(callTool(fs, 'remove', { path: 'dir', recursive: true })).resolves.toEqual({ path: 'dir', removed: true });
    await symlink(outside, join(root, 'link'));
    await expect(callTool(fs, 'remove', { path: 'link', recursive: true })).resolves.toEqual({ path: 'link', removed: true });
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect((await toolCallErrorOf(callTool(fs, 'remove', { path: '.', recursive: true }))).code).toBe('FORBIDDEN');
    expect((await toolCallErrorOf(callTool(fs, 'remove', { path: '../outside', recursive: true }))).code).toBe('FORBIDDEN');
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });
});

describe('std fs: host budgets', () => {
  it('refuses a 2 GiB sparse file by its size, without reading it, and reads parts of it with offset and length', async () => {
    await writeFile(join(root, 'huge.bin'), '');
    await truncate(join(root, 'huge.bin'), 2 * 1024 ** 3);
    await writeFile(join(root, 'tail.txt'), 'the end');
    const error = await toolCallErrorOf(callTool(fs, 'readFile', { path: 'huge.bin' }));
    expect(error).toMatchObject({ code: 'RESULT_TOO_LARGE', details: { size: 2 * 1024 ** 3, maxBytes: 1024 * 1024 } });
    expect(error.message).toBe(
      '"huge.bin" has 2 GiB (2147483648 bytes), more than maxBytes (1048576): read it in parts with offset and length (at most 1048576 bytes each), or read a smaller file',
    );
    const part = await callTool(fs, 'readFile', { path: 'huge.bin', offset: 2 * 1024 ** 3 - 4, length: 100, encoding: 'base64' });
    expect(Buffer.from(part as string, 'base64')).toEqual(Buffer.alloc(4));
    await expect(callTool(fs, 'readFile', { path: 'tail.txt', offset: 4 })).resolves.toBe('end');
    await expect(callTool(fs, 'readFile', { path: 'tail.txt', offset: 4, length: 2 })).resolves.toBe('en');
    await expect(callTool(fs, 'readFile', { path: 'tail.txt', offset: 100 })).resolves.toBe('');
  });

  it('never accepts a maxBytes or length past the result cap', async () => {
    const small = createFsTool({ root, maxResultBytes: 10 });
    await writeFile(join(root, 'eleven.txt'), 'x'.repeat(11));
    await expect(callTool(small, 'readFile', { path: 'eleven.txt', maxBytes: 11 })).rejects.toThrow(/10/);
    await expect(callTool(small, 'readFile', { path: 'eleven.txt', length: 11 })).rejects.toThrow(/10/);
    expect((await toolCallErrorOf(callTool(small, 'readFile', { path: 'eleven.txt' }))).code).toBe('RESULT_TOO_LARGE');
    await expect(callTool(small, 'readFile', { path: 'eleven.txt', offset: 1 })).resolves.toBe('x'.repeat(10));
  });

  it('refuses FIFOs for every function, at once, directly and through a symlink', async () => {
    execFileSync('mkfifo', [join(root, 'pipe')]);
    await symlink(join(root, 'pipe'), join(root, 'alias'));
    const calls: [string, Record<string, unknown>][] = [
      ['readFile', {}],
      ['readFile', { offset: 0, length: 10 }],
      ['writeFile', { content: 'x' }],
      ['appendFile', { content: 'x' }],
      ['list', {}],
      ['exists', {}],
      ['stat', {}],
      ['mkdir', {}],
    ];
    for (const path of ['pipe', 'alias']) {
      for (const [name, args] of calls) {
        const error = await toolCallErrorOf(callTool(fs, name, { path, ...args }));
        expect(error, `${name} ${path}`).toMatchObject({ code: 'FORBIDDEN', details: { kind: 'FIFO (named pipe)' } });
      }
    }
    expect((await toolCallErrorOf(callTool(fs, 'remove', { path: 'pipe' }))).code).toBe('FORBIDDEN');
    // The symlink itself is an ordinary entry: removing it leaves the FIFO alone.
    await expect(callTool(fs, 'remove', { path: 'alias' })).resolves.toEqual({ path: 'alias', removed: true });
    expect((await readdir(root)).sort()).toEqual(['pipe']);
    // Listing the folder that holds it is fine: the FIFO is shown, never opened.
    await expect(callTool(fs, 'list', {})).resolves.toEqual([{ name: 'pipe', path: 'pipe', type: 'other', size: 0 }]);
  });

  it('refuses sockets', async () => {
    // A socket path must stay short (about 100 bytes), so this one lives in a short folder of its own.
    const short = await mkdtemp('/tmp/as-');
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(join(short, 's'), resolve));
    try {
      const sockets = createFsTool({ root: short });
      for (const name of ['readFile', 'appendFile', 'writeFile', 'stat', 'exists']) {
        expect(await toolCallErrorOf(callTool(sockets, name, { path: 's', content: 'x' }))).toMatchObject({
          code: 'FORBIDDEN',
          details: { kind: 'socket' },
        });
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await rm(short, { recursive: true, force: true });
    }
  });

  it('refuses character devices (a workspace at /dev)', async () => {
    const devices = createFsTool({ root: '/dev' });
    for (const path of ['zero', 'null', 'urandom']) {
      for (const name of ['readFile', 'appendFile', 'stat']) {
        expect(await toolCallErrorOf(callTool(devices, name, { path, content: 'x' }))).toMatchObject({
          code: 'FORBIDDEN',
          details: { kind: 'character device' },
        });
      }
    }
  });

  it('caps what one run writes, names the quota and how to raise it, and counts each run apart', async () => {
    const quota = createFsTool({ root, maxWriteBytesPerRun: 100 });
    const run = { runId: 'run-a' };
    await callTool(quota, 'writeFile', { path: 'a.txt', content: 'x'.repeat(60) }, run);
    await callTool(quota, 'appendFile', { path: 'a.txt', content: 'y'.repeat(30) }, run);
    const error = await toolCallErrorOf(callTool(quota, 'writeFile', { path: 'b.txt', content: 'z'.repeat(20) }, run));
    expect(error).toMatchObject({
      code: 'FORBIDDEN',
      details: { writtenBytes: 90, bytes: 20, maxWriteBytesPerRun: 100, configKey: 'std.fs.maxWriteBytesPerRun' },
    });
    expect(error.message).toBe(
      'writing 20 bytes to "b.txt" is refused: this run has written 90 bytes with std fs and the per-run write quota is 100 bytes (std.fs.maxWriteBytesPerRun): write less, or raise std.fs.maxWriteBytesPerRun in the config',
    );
    expect((await toolCallErrorOf(callTool(quota, 'appendFile', { path: 'a.txt', content: 'z'.repeat(11) }, run))).code).toBe('FORBIDDEN');
    expect(await readdir(root)).toEqual(['a.txt']);
    expect(await readFile(join(root, 'a.txt'), 'utf8')).toHaveLength(90);
    // What is left can still be used, and another run has a quota of its own.
    await callTool(quota, 'appendFile', { path: 'a.txt', content: 'z'.repeat(10) }, run);
    await expect(callTool(quota, 'writeFile', { path: 'b.txt', content: 'z'.repeat(100) }, { runId: 'run-b' })).resolves.toEqual({
      path: 'b.txt',
      bytes: 100,
    });
  });

  it('gives the quota back when a write fails', async () => {
    const quota = createFsTool({ root, maxWriteBytesPerRun: 10 });
    await mkdir(join(root, 'taken'));
    expect((await toolCallErrorOf(callTool(quota, 'writeFile', { path: 'taken', content: 'x'.repeat(10) }))).code).toBe('TOOL_FAILED');
    expect((await toolCallErrorOf(callTool(quota, 'appendFile', { path: 'taken', content: 'x'.repeat(10) }))).code).not.toBe('FORBIDDEN');
    await expect(callTool(quota, 'writeFile', { path: 'ok.txt', content: 'x'.repeat(10) })).resolves.toEqual({ path: 'ok.txt', bytes: 10 });
  });

  it('counts concurrent writes of one run together', async () => {
    const quota = createFsTool({ root, maxWriteBytesPerRun: 100 });
    const writes = Array.from({ length: 10 }, (_, index) =>
      callTool(quota, 'writeFile', { path: `f${index}.txt`, content: 'x'.repeat(30) }).then(
        () => 'ok',
        (error: ToolCallError) => error.code,
      ),
    );
    const outcomes = await Promise.all(writes);
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'FORBIDDEN')).toHaveLength(7);
  });

  it('lists at most 10000 entries of a huge folder', async () => {
    await mkdir(join(root, 'many'));
    await Promise.all(Array.from({ length: 10_050 }, (_, index) => writeFile(join(root, 'many', `f${index}`), '')));
    await expect(callTool(fs, 'list', { path: 'many' })).resolves.toHaveLength(10_000);
    expect((await toolCallErrorOf(callTool(fs, 'list', { path: 'many/f1' }))).message).toBe(
      '"many/f1" is a file, not a folder: use fs.stat or fs.readFile for it',
    );
  });
});
