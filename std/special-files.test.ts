import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';
import { openRegularFile, readUpTo } from './special-files.js';

const target = { capability: 'std-fs', function: 'readFile' };
let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'agent-spaces-special-'));
});
afterEach(async () => rm(folder, { recursive: true, force: true }));

describe('openRegularFile: the check on the opened handle', () => {
  // These open the FIFO the way readFile/appendFile do after their lstat check passed: what a FIFO
  // swapped in between the check and the open meets. Without O_NONBLOCK the read open would wait forever.
  it('refuses a FIFO opened for reading, without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(folder, 'pipe')]);
    const error = await toolCallErrorOf(openRegularFile(join(folder, 'pipe'), constants.O_RDONLY, 'pipe', target));
    expect(error).toMatchObject({ code: 'FORBIDDEN', details: { path: 'pipe', kind: 'FIFO (named pipe)' } });
  });

  it('refuses a FIFO opened for appending, with and without a reader at the other end', async () => {
    execFileSync('mkfifo', [join(folder, 'pipe')]);
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;
    expect(await toolCallErrorOf(openRegularFile(join(folder, 'pipe'), flags, 'pipe', target))).toMatchObject({
      code: 'FORBIDDEN',
      details: { kind: 'FIFO (named pipe)' },
    });
    const reader = await open(join(folder, 'pipe'), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      expect(await toolCallErrorOf(openRegularFile(join(folder, 'pipe'), flags, 'pipe', target))).toMatchObject({
        code: 'FORBIDDEN',
        details: { kind: 'FIFO (named pipe)' },
      });
    } finally {
      await reader.close();
    }
  });

  it('refuses a symlink swapped in for a resolved path', async () => {
    await writeFile(join(folder, 'real.txt'), 'x');
    execFileSync('ln', ['-s', join(folder, 'real.txt'), join(folder, 'link')]);
    const error = await toolCallErrorOf(openRegularFile(join(folder, 'link'), constants.O_RDONLY, 'link', target));
    expect(error).toMatchObject({ code: 'FORBIDDEN', message: '"link" changed into a symbolic link while it was being opened: try again' });
  });

  it('refuses a character device', async () => {
    expect(await toolCallErrorOf(openRegularFile('/dev/zero', constants.O_RDONLY, 'zero', target))).toMatchObject({
      code: 'FORBIDDEN',
      details: { kind: 'character device' },
    });
  });
});

describe('readUpTo', () => {
  it('reads to the end or to the limit, and says whether more follows', async () => {
    await writeFile(join(folder, 'data'), Buffer.alloc(200_000, 7));
    const handle = await open(join(folder, 'data'), 'r');
    try {
      expect(await readUpTo(handle, 0, 300_000)).toMatchObject({ more: false, data: { length: 200_000 } });
      expect(await readUpTo(handle, 0, 200_000)).toMatchObject({ more: false, data: { length: 200_000 } });
      expect(await readUpTo(handle, 0, 199_999)).toMatchObject({ more: true, data: { length: 199_999 } });
      expect(await readUpTo(handle, 199_990, 5)).toMatchObject({ more: true, data: { length: 5 } });
      expect(await readUpTo(handle, 250_000, 5)).toMatchObject({ more: false, data: { length: 0 } });
    } finally {
      await handle.close();
    }
  });

  it('stops at the limit on an endless source', async () => {
    const handle = await open('/dev/zero', 'r');
    try {
      // Positional reads of /dev/zero never end: only the limit stops them.
      expect(await readUpTo(handle, 0, 100_000)).toMatchObject({ more: true, data: { length: 100_000 } });
    } finally {
      await handle.close();
    }
  });
});
