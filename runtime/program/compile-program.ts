/**
 * The model's TypeScript → one ES module of JavaScript for the isolate, with a way back from
 * positions in that JavaScript to the lines the model wrote.
 */
import { transformSync, type TransformFailure } from 'esbuild';
import type { RunError } from '../../core/run-result.js';
import { prepareProgram, type Position, type PreparedProgram } from './prepare-program.js';
import { PROGRAM_FILENAME } from './program-filename.js';
import { decodeSourceMap } from './source-map.js';

export interface CompiledProgram {
  ok: true;
  kind: PreparedProgram['kind'];
  js: string;
  imports: string[];
  /** Maps a position in `js` to the model's TypeScript (both 1-based). */
  toSource(position: Position): Position | undefined;
}

export interface CompileFailure {
  ok: false;
  error: RunError;
}

export function compileProgram(code: string): CompiledProgram | CompileFailure {
  const prepared = prepareProgram(code);
  if (!prepared.ok) return prepared;
  let output: { code: string; map: string };
  try {
    output = transformSync(prepared.source, {
      loader: 'ts',
      format: 'esm',
      target: 'es2022',
      sourcemap: 'external',
      sourcefile: PROGRAM_FILENAME,
      logLevel: 'silent',
    });
  } catch (error) {
    return { ok: false, error: syntaxError(error, prepared) };
  }
  const map = decodeSourceMap(output.map);
  return {
    ok: true,
    kind: prepared.kind,
    js: output.code,
    imports: prepared.imports,
    toSource(position) {
      const original = map.originalPosition(position);
      return original === undefined ? undefined : prepared.toOriginal(original);
    },
  };
}

function syntaxError(error: unknown, prepared: PreparedProgram): RunError {
  const first = (error as Partial<TransformFailure>).errors?.[0];
  if (first === undefined) return { name: 'SyntaxError', code: 'SYNTAX_ERROR', message: String(error) };
  const location = first.location;
  if (location === null) return { name: 'SyntaxError', code: 'SYNTAX_ERROR', message: first.text };
  const at = prepared.toOriginal({ line: location.line, column: location.column + 1 });
  return { name: 'SyntaxError', code: 'SYNTAX_ERROR', message: `${first.text} (line ${at.line})`, ...at };
}
