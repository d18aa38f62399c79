// Editor setup: `capabilities build` writes a tsconfig for programs, so a hand-written program.ts
// type-checks in VS Code and with the real `tsc` as it does in a run: @capabilities/* modules and the
// sandbox's globals are known, Node's modules are not.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');

const GOOD = `import { json } from '@capabilities/std';
const parsed = await json.parse({ text: '[1, 2]' });
console.log(parsed, new URL('https://example.com/a').host, new TextEncoder().encode('x').length);
await new Promise((resolve) => setTimeout(() => resolve(undefined), 10));
export default parsed;
`;

describe('editor setup for programs', { timeout: 240_000 }, () => {
  let root: string;

  beforeAll(async () => {
    root = await makeTempDir('editor-setup');
    const build = await execa(process.execPath, [BIN, 'capabilities', 'build'], { cwd: root, env: {}, reject: false, timeout: 180_000 });
    expect(build.exitCode, build.stderr).toBe(0);
    expect(build.stderr).toContain('editor setup: .agent-spaces/tsconfig.json');
    await mkdir(path.join(root, 'programs'));
    await writeFile(path.join(root, 'programs/tsconfig.json'), JSON.stringify({ extends: '../.agent-spaces/tsconfig.json' }));
  }, 240_000);

  async function tsc(program: string) {
    await writeFile(path.join(root, 'programs/program.ts'), program);
    return execa(process.execPath, [TSC, '-p', path.join(root, 'programs')], { cwd: root, reject: false, timeout: 120_000 });
  }

  it('a program importing @capabilities/* and using the sandbox globals type-checks with tsc', async () => {
    const result = await tsc(GOOD);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
  });

  it("the declarations are the build's: a misspelled function is an error", async () => {
    const result = await tsc(GOOD.replace('json.parse', 'json.prase'));
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toMatch(/program\.ts\(2,\d+\): error TS2551: Property 'prase' does not exist/);
  });

  it("import fs from 'node:fs' fails, as it does in a run", async () => {
    const result = await tsc("import fs from 'node:fs';\nexport default fs.readFileSync('x');\n");
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toContain("error TS2307: Cannot find module 'node:fs'");
  });

  it('a later build keeps a tsconfig the user changed, and says nothing more about it', async () => {
    const file = path.join(root, '.agent-spaces/tsconfig.json');
    const changed = (await readFile(file, 'utf8')).replace('"strict": true', '"strict": true, "noImplicitReturns": true');
    await writeFile(file, changed);
    const build = await execa(process.execPath, [BIN, 'capabilities', 'build'], { cwd: root, env: {}, reject: false, timeout: 180_000 });
    expect(build.exitCode, build.stderr).toBe(0);
    expect(build.stderr).not.toContain('editor setup');
    expect(await readFile(file, 'utf8')).toBe(changed);
    expect(existsSync(path.join(root, '.agent-spaces/types/agent-spaces-sandbox/index.d.ts'))).toBe(true);
  });
});
