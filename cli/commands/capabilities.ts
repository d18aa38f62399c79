import { openSpace } from '../../agents/index.js';
import type { BuildResult } from '../../compiler/index.js';
import { buildCatalog, formatSignature } from '../../compiler/index.js';
import path from 'node:path';
import { reportKeptModules } from '../build-report.js';
import { writeProgramTsconfig } from '../program-tsconfig.js';
import { printJson, printText, progress } from '../output.js';

export interface CapabilitiesOptions {
  cwd: string;
  config?: string;
  json: boolean;
  force: boolean;
}

export async function buildCommand(options: CapabilitiesOptions): Promise<number> {
  const space = await openSpace({ cwd: options.cwd, ...(options.config ? { configFile: options.config } : {}) });
  try {
    progress(`Building capabilities → ${space.config.outDir}`);
    // Failures seen as their source ended; the rest (a missing file, a folder, an agent) are printed after.
    const reported = new Set<string>();
    const result = await space.build({
      force: options.force,
      onProgress: (event) => {
        if (event.type === 'source-start') return;
        if (event.status === 'failed') reported.add(event.source);
        const status =
          event.status === 'loaded' ? `${event.functions} function${event.functions === 1 ? '' : 's'}` : `FAILED: ${event.message ?? ''}`;
        progress(`  ${event.source.padEnd(40)} ${status} (${Math.round(event.durationMs)} ms)`);
      },
    });
    for (const failure of result.errors)
      if (!reported.has(failure.source)) progress(`  ${failure.source.padEnd(40)} FAILED: ${failure.message}`);
    reportKeptModules(result);
    const tsconfig = await writeProgramTsconfig(space.config.outDir);
    if (tsconfig.written) {
      const relative = path.relative(space.config.root, tsconfig.file).split(path.sep).join('/');
      progress(
        `  editor setup: ${relative} type-checks programs as a run does; extend it from a tsconfig.json in your programs' folder, e.g. programs/tsconfig.json: { "extends": "../${relative}" } (see the README)`,
      );
    }
    if (options.json) printJson(summary(result));
    else printSummary(result);
    return result.errors.length > 0 ? 1 : 0;
  } finally {
    await space.close();
  }
}

export async function listCommand(options: CapabilitiesOptions): Promise<number> {
  const space = await openSpace({ cwd: options.cwd, ...(options.config ? { configFile: options.config } : {}) });
  try {
    const specs = await space.capabilities();
    if (options.json) {
      printJson(buildCatalog(specs));
      return 0;
    }
    for (const spec of specs) {
      printText(`@capabilities/${spec.module}  (${spec.namespace}${spec.description ? ` — ${headline(spec.description)}` : ''})`);
      for (const fn of spec.functions) {
        const approval = fn.requiresApproval || spec.config.requiresApproval ? '  [requires approval]' : '';
        printText(`  ${formatSignature(fn, spec)}${approval}`);
      }
    }
    return 0;
  } finally {
    await space.close();
  }
}

function summary(result: BuildResult) {
  return {
    outDir: result.outDir,
    sources: result.sources,
    modules: result.manifest.capabilities.map((spec) => spec.module),
    functions: result.functionCount,
    warnings: result.warnings,
    errors: result.errors,
    written: result.written.length,
    /** Functions whose result type was learned from observed results, not declared (`module.function`). */
    inferredResults: inferredResultIds(result),
    durationMs: Math.round(result.durationMs),
  };
}

/** The functions declared with a result type learned from observed results (see compiler/inferred-results.ts). */
function inferredResultIds(result: BuildResult): string[] {
  return result.manifest.capabilities.flatMap((spec) =>
    spec.functions.filter((fn) => fn.inferredResult !== undefined).map((fn) => `${spec.module}.${fn.name}`),
  );
}

function printSummary(result: BuildResult): void {
  const built = result.sources.filter((s) => s.status === 'built').length;
  const unchanged = result.sources.filter((s) => s.status === 'unchanged').length;
  // A failed source was printed above; it is among the warnings too, for the manifest, but neither
  // printed nor counted again here.
  const failures = new Set(result.errors.map((failure) => `${failure.source}\n${failure.message}`));
  const warnings = result.warnings.filter((warning) => !failures.has(`${warning.source}\n${warning.message}`));
  for (const warning of warnings) {
    const where = [warning.source, warning.capability, warning.function, warning.pointer].filter(Boolean).join(' › ');
    progress(`  warning: ${where}: ${warning.message}`);
  }
  const inferred = inferredResultIds(result);
  if (inferred.length > 0) {
    progress(
      `  ${inferred.length} function${inferred.length === 1 ? '' : 's'} typed from inferred results (observed, not declared by the server): ${inferred.join(', ')}`,
    );
  }
  const line =
    `${count(result.sources.length, 'source')} (${built} built, ${unchanged} unchanged, ${result.errors.length} failed), ` +
    `${count(result.manifest.capabilities.length, 'module')}, ${count(result.functionCount, 'function')}, ${count(warnings.length, 'warning')}, ` +
    `${count(result.written.length, 'file')} written in ${Math.round(result.durationMs)} ms`;
  printText(line);
}

/** `1 warning`, `2 warnings`. */
function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount === 1 ? '' : 's'}`;
}

/** The first line of a description, shortened: `list` is an overview (the declarations have it all). */
function headline(description: string): string {
  const line = description.split('\n')[0]?.trim() ?? '';
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}
