/**
 * TypeScript 7's native compiler, where it is installed: the package `typescript-native` (an alias of
 * `typescript@7`) and its platform's binary in the optional dependency `@typescript/typescript-<platform>-<arch>`.
 * Finding it reads two package.json files and looks for the binary; it starts nothing.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type NativeTsc =
  | { ok: true; exe: string; libDir: string; version: string }
  /** Why there is none here (not installed, no binary for this platform). */
  | { ok: false; reason: string };

let found: NativeTsc | undefined;

/** The native `tsc` of this installation, or why there is none (the answer is kept for the process). */
export function findNativeTsc(): NativeTsc {
  found ??= locate();
  return found;
}

function locate(): NativeTsc {
  const require = createRequire(import.meta.url);
  let packageJson: string;
  try {
    packageJson = require.resolve('typescript-native/package.json');
  } catch {
    return { ok: false, reason: 'the package typescript-native (typescript@7) is not installed' };
  }
  const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };
  const platformPackage = `@typescript/typescript-${process.platform}-${process.arch}`;
  let libDir: string;
  try {
    libDir = path.join(path.dirname(createRequire(packageJson).resolve(`${platformPackage}/package.json`)), 'lib');
  } catch {
    return {
      ok: false,
      reason: `TypeScript ${version}'s binary for ${process.platform}-${process.arch} (${platformPackage}) is not installed`,
    };
  }
  const exe = path.join(libDir, process.platform === 'win32' ? 'tsc.exe' : 'tsc');
  try {
    accessSync(exe, constants.X_OK);
  } catch (error) {
    return { ok: false, reason: `${exe} cannot be run (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  return { ok: true, exe, libDir, version };
}
