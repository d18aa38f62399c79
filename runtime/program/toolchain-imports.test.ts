// Runs take the light path: importing the runtime and compiling a program loads no TypeScript,
// ts-morph or esbuild (the type checker loads TypeScript in its worker threads only).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOOLCHAIN = /^(typescript|ts-morph|@ts-morph\/.*|esbuild)$/;

/** Packages of the CommonJS files loaded in this process (an ES module importing one loads it through there too). */
const PROBE = `
import { createRequire } from 'node:module';
const loaded = () => [...new Set(Object.keys(createRequire(import.meta.url).cache)
  .map((file) => /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(file)?.[1]).filter(Boolean))];
await import('./runtime/index.ts');
const { compileProgram } = await import('./runtime/program/compile-program.ts');
const compiled = compileProgram("import { add } from '@capabilities/math';\\nconst n: number = await add({ a: 1, b: 2 });\\nreturn n;");
const afterRun = loaded();
await import('./runtime/type-check/language-service.ts');
console.log(JSON.stringify({ ok: compiled.ok, afterRun, afterChecker: loaded() }));
`;

describe('the toolchain a run loads', () => {
  it('imports and compiles without TypeScript or ts-morph in the process (the probe sees them once the checker loads)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], { cwd: ROOT });
    const result = JSON.parse(stdout) as { ok: boolean; afterRun: string[]; afterChecker: string[] };
    expect(result.ok).toBe(true);
    // tsx itself runs on esbuild, so this process cannot tell about esbuild: the import graph below does.
    expect(result.afterRun.filter((name) => TOOLCHAIN.test(name) && name !== 'esbuild')).toEqual([]);
    // The checker loads the compiler ts-morph carries, not ts-morph's own entry (0.2–0.3 s more CPU).
    expect(result.afterChecker).toEqual(expect.arrayContaining(['@ts-morph/common']));
    expect(result.afterChecker).not.toContain('ts-morph');
  }, 120_000);

  it('reaches no toolchain package through the imports of runtime/index.ts, static or lazy', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      const specifiers = [
        ...text.matchAll(/^\s*(?:import|export)\s(?!type\s)[^;]*?from\s+'([^']+)'|(?<!typeof\s)import\(\s*'([^']+)'\s*\)/gms),
      ].map((match) => match[1] ?? match[2] ?? '');
      for (const specifier of specifiers) {
        if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
        else packages.add(specifier);
      }
    };
    visit(path.join(ROOT, 'runtime', 'index.ts'));
    expect(seen).toContain(path.join(ROOT, 'runtime', 'program', 'compile-program.ts'));
    expect([...packages].filter((name) => TOOLCHAIN.test(name))).toEqual([]);
  });
});
