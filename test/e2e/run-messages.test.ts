// What a user sees on the first mistakes: a mistyped command, two config files in one folder, a program
// that imports node:fs (reported as what it is, with the type error before it still shown) and one that
// calls fetch (pointed at std's http).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

function cli(args: string[], cwd: string) {
  return execa(process.execPath, [BIN, ...args], { cwd, env: {}, reject: false, timeout: 120_000, stdin: 'ignore' });
}

const PROGRAM = `import { jsn } from '@capabilities/std';
import fs from 'node:fs';
const page = await fetch('https://example.com');
export default [jsn, fs.readFileSync('x'), page];
`;

describe('first mistakes', { timeout: 240_000 }, () => {
  it('a mistyped command or option gets a "did you mean"', async () => {
    const command = await cli(['rnu', 'program.ts'], REPO);
    expect(command.exitCode).toBe(2);
    expect(command.stderr).toContain('unknown command "rnu" (did you mean "run"?)');
    const option = await cli(['run', 'program.ts', '--timout', '5'], REPO);
    expect(option.exitCode).toBe(2);
    expect(option.stderr).toContain('unknown option --timout (did you mean "--timeout"?)');
  });

  it('two config files: says which one is used; node:fs and fetch: every real error with its line, hints, no fake TS0', async () => {
    const root = await makeTempDir('first-mistakes');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ std: { fs: { root: 'files' } } }));
    await writeFile(path.join(root, 'agent-spaces.config.ts'), 'export default {};\n');
    await writeFile(path.join(root, 'program.ts'), PROGRAM);
    const run = await cli(['run', 'program.ts'], root);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `agent-spaces: warning: agent-spaces.config.ts and agent-spaces.config.json are both in ${root}: using agent-spaces.config.ts, ignoring agent-spaces.config.json`,
    );
    expect(run.stderr).not.toContain('TS0');
    const diagnostics = run.stderr.split('\n').filter((line) => line.startsWith('  program.ts:'));
    // Line 1's real error first, then the refused import (no TypeScript code: it is not one), then fetch.
    expect(diagnostics[0]).toMatch(/^ {2}program\.ts:1:\d+ TS\d+: .*'jsn'/);
    expect(diagnostics[1]).toMatch(/^ {2}program\.ts:2:1 .*"node:fs"/);
    expect(diagnostics[1]).not.toMatch(/TS\d/);
    expect(diagnostics[2]).toMatch(
      /^ {2}program\.ts:3:\d+ TS2304: Cannot find name 'fetch'\. The sandbox has no network of its own: call HTTP through std's http capability/,
    );
    // fs was bound only by the refused import: not reported missing a second time.
    expect(run.stderr).not.toContain("Cannot find name 'fs'");
  });
});
