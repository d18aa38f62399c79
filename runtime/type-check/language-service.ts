/**
 * A warm type checker for programs, run inside the check worker: one in-memory TypeScript project
 * (strict, ES2022, no DOM) with the build's `capabilities.d.ts` and the sandbox's globals. Each
 * check swaps the program's text and asks the language service, so only the program is re-checked.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Project, ts } from 'ts-morph';
import { BUILD_LAYOUT } from '../../core/manifest.js';
import type { Diagnostic } from '../../core/run-result.js';
import { prepareProgram } from '../program/prepare-program.js';
import { SANDBOX_GLOBALS_DECLARATION } from '../sandbox-globals.js';

export interface ProgramChecker {
  /** Reads the declarations again when the build changed them. */
  refreshDeclarations(): void;
  /** Type errors of the program, in its own line/column (1-based); empty when it checks. */
  check(code: string): Diagnostic[];
}

const PROGRAM_FILE = '/program.ts';
const DECLARATIONS_FILE = '/capabilities.d.ts';
const GLOBALS_FILE = '/sandbox-globals.d.ts';

export function createProgramChecker(options: { outDir: string }): ProgramChecker {
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      moduleDetection: ts.ModuleDetectionKind.Force,
      lib: ['lib.es2022.d.ts'],
      types: [],
      noEmit: true,
      skipLibCheck: true,
      noUncheckedIndexedAccess: true,
    },
  });
  project.createSourceFile(GLOBALS_FILE, SANDBOX_GLOBALS_DECLARATION);
  const declarationsPath = path.join(options.outDir, BUILD_LAYOUT.declarationsFile);
  let declarationsStamp = '';
  const program = project.createSourceFile(PROGRAM_FILE, '', { overwrite: true });
  const service = project.getLanguageService().compilerObject;

  return {
    refreshDeclarations() {
      let stamp = 'missing';
      try {
        const stat = statSync(declarationsPath);
        stamp = `${stat.mtimeMs}:${stat.size}`;
      } catch {
        // No declarations: programs that import capabilities fail to check, which says what is missing.
      }
      if (stamp === declarationsStamp) return;
      declarationsStamp = stamp;
      const text = stamp === 'missing' ? '' : readFileSync(declarationsPath, 'utf8');
      project.createSourceFile(DECLARATIONS_FILE, text, { overwrite: true });
    },
    check(code) {
      const prepared = prepareProgram(code);
      if (!prepared.ok) {
        const { line = 1, column = 1, message } = prepared.error;
        return [{ line, column, code: 0, message }];
      }
      program.replaceWithText(prepared.source);
      const found = [...service.getSyntacticDiagnostics(PROGRAM_FILE), ...service.getSemanticDiagnostics(PROGRAM_FILE)];
      const file = program.compilerNode;
      return found.map((diagnostic) => {
        const at = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const position = prepared.toOriginal({ line: at.line + 1, column: at.character + 1 });
        return { ...position, code: diagnostic.code, message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n') };
      });
    },
  };
}
