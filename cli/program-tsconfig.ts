import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUILD_LAYOUT } from '../core/index.js';
import { SANDBOX_GLOBALS_DECLARATION } from '../runtime/index.js';

/** The types package that holds the sandbox's globals and the build's declarations, under `<outDir>/types/`. */
const SANDBOX_TYPES = 'agent-spaces-sandbox';

/**
 * Editor and `tsc` setup for programs: `<outDir>/tsconfig.json`, written when absent, with the options
 * the run's type-check uses and, as a types package (`<outDir>/types/agent-spaces-sandbox/`, written at
 * every build), the sandbox's globals and the build's `@capabilities/*` declarations, nothing else (no
 * DOM, no Node: `import fs from 'node:fs'` fails as it does in a run). A `tsconfig.json` beside the
 * programs extends it. Returns the tsconfig's path and whether this build wrote it.
 */
export async function writeProgramTsconfig(outDir: string): Promise<{ file: string; written: boolean }> {
  const types = path.join(outDir, 'types', SANDBOX_TYPES);
  await mkdir(types, { recursive: true });
  const index = `// The sandbox's globals and the build's @capabilities/* modules, for editors and tsc (written by agent-spaces capabilities build).\n/// <reference path="../../${BUILD_LAYOUT.declarationsFile}" />\n${SANDBOX_GLOBALS_DECLARATION}`;
  await writeIfChanged(path.join(types, 'index.d.ts'), index);
  const file = path.join(outDir, 'tsconfig.json');
  if (existsSync(file)) return { file, written: false };
  const config = {
    // Extend this from a tsconfig.json beside your programs: { "extends": "<path to it>", "include": ["*.ts"] }
    compilerOptions: {
      strict: true,
      noUncheckedIndexedAccess: true,
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      moduleDetection: 'force',
      lib: ['ES2022'],
      typeRoots: ['./types'],
      types: [SANDBOX_TYPES],
      noEmit: true,
      skipLibCheck: true,
    },
  };
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return { file, written: true };
}

async function writeIfChanged(file: string, content: string): Promise<void> {
  const current = await readFile(file, 'utf8').catch(() => undefined);
  if (current !== content) await writeFile(file, content);
}
