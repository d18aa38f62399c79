// `agent-spaces capabilities save` in its own process (the bin), then `capabilities list` showing the saved function.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ADD_NOTES, makeSavedSpace } from '../../space/saved-programs/test-support/saved-space.js';

const BIN = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'bin/agent-spaces.js');

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ['--no-node-snapshot', BIN, ...args]).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

describe('agent-spaces capabilities save', () => {
  it('saves a program file as a function that capabilities list shows, and refuses a bad one naming the line', async () => {
    const { root } = await makeSavedSpace('cli-save');
    await writeFile(path.join(root, 'add-notes.ts'), ADD_NOTES);
    await writeFile(path.join(root, 'bad.ts'), 'const x = 1;\nexport default x;\n');

    const saved = await cli(['capabilities', 'save', 'add-notes.ts', '--as', 'notes-tools.addNotes', '--cwd', root]);
    expect(saved.stderr).toBe('');
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain("saved notes-tools.addNotes: import { addNotes } from '@capabilities/saved-notes-tools'");
    expect(saved.stdout).toContain('calls: notes.add, notes.list');
    expect(existsSync(path.join(root, 'saved', 'notes-tools', 'addNotes.ts'))).toBe(true);

    const listed = await cli(['capabilities', 'list', '--cwd', root]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('@capabilities/saved-notes-tools');
    expect(listed.stdout).toContain('addNotes');

    const bad = await cli(['capabilities', 'save', 'bad.ts', '--as', 'notes-tools.bad', '--cwd', root]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('the default export is not a function declaration (bad.ts, line 2)');
    expect(existsSync(path.join(root, 'saved', 'notes-tools', 'bad.ts'))).toBe(false);

    const noName = await cli(['capabilities', 'save', 'add-notes.ts', '--cwd', root]);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('capabilities save needs --as <group.name>');
  }, 180_000);
});
