/**
 * The model's TypeScript → one ES module of JavaScript for the isolate, with a way back from
 * positions in that JavaScript to the lines the model wrote. The light path of every run: sucrase
 * strips the types (keeping every line where it was), acorn reads the JavaScript, shape-module.ts
 * rewrites it. No TypeScript and no esbuild service here; a source map is made only when a position
 * has to be mapped (an error).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { parse as Parse } from 'acorn';
import type { Options, transform as Transform } from 'sucrase';
import type { RunError } from '../../core/run-result.js';
import { positionAt, refusal, REFUSED, type Position } from './program-shape.js';
import { PROGRAM_FILENAME } from './program-filename.js';
import { shapeModule } from './shape-module.js';
import { decodeMappings } from './source-map.js';

// Loaded with the first program, not with the package (about 11 MB a host that never runs code need not pay).
const require = createRequire(import.meta.url);
let parse: typeof Parse = (...args) => (parse = (require('acorn') as { parse: typeof Parse }).parse)(...args);
let transform: typeof Transform = (...args) => (transform = (require(sucraseFile()) as { transform: typeof Transform }).transform)(...args);

/** sucrase in one file beside this module in a built package (scripts/bundle-cli.mjs: ~50 ms less to load than its 57 files), else the package. */
function sucraseFile(): string {
  const bundled = fileURLToPath(new URL('./sucrase.cjs', import.meta.url));
  return existsSync(bundled) ? bundled : 'sucrase';
}

export interface CompiledProgram {
  ok: true;
  /** `snippet`: the program returns at top level. `module`: it exports (or does neither). */
  kind: 'module' | 'snippet';
  js: string;
  /** The `@capabilities/*` modules the program imports (`import type` aside: it loads nothing). */
  imports: string[];
  /** Maps a position in `js` to the model's TypeScript (both 1-based). */
  toSource(position: Position): Position | undefined;
}

export interface CompileFailure {
  ok: false;
  error: RunError;
}

// Imports stay (even unused ones: a refused import must be seen); shape-module drops the unused.
const SUCRASE_OPTIONS: Options = { transforms: ['typescript'], keepUnusedImports: true, disableESTransforms: true };

export function compileProgram(code: string): CompiledProgram | CompileFailure {
  let js: string;
  try {
    js = transform(code, SUCRASE_OPTIONS).code;
  } catch (error) {
    return { ok: false, error: syntaxError(error, code, (offset) => positionAt(code, offset)) };
  }
  // Sucrase drops namespaces (it cannot compile them): refuse them, as prepare-program does.
  const namespace = findNamespace(code, js);
  if (namespace !== undefined) return refusal(REFUSED.namespace, namespace);

  let map: ((position: Position) => Position) | undefined;
  const toTypeScript = (position: Position): Position => {
    map ??= sourceMapOf(code);
    return map(position);
  };
  const toTypeScriptOffset = (offset: number): Position => toTypeScript(positionAt(js, offset));
  let tree;
  try {
    tree = parse(js, { ecmaVersion: 'latest', sourceType: 'module', allowReturnOutsideFunction: true, preserveParens: true });
  } catch (error) {
    return { ok: false, error: syntaxError(error, js, toTypeScriptOffset) };
  }
  const originalStartsWith = (offset: number, pattern: RegExp): boolean => {
    const { line, column } = toTypeScriptOffset(offset);
    return pattern.test(code.split('\n')[line - 1]?.slice(column - 1) ?? '');
  };
  const shaped = shapeModule(js, tree, originalStartsWith);
  if (!shaped.ok) return refusal(shaped.message, toTypeScriptOffset(shaped.offset));
  return {
    ok: true,
    kind: shaped.kind,
    js: shaped.js,
    imports: shaped.imports,
    toSource: (position) => toTypeScript(shaped.toUnwrapped(position)),
  };
}

/** Maps positions in sucrase's output back to `code`; lines are the same, columns may not be. */
function sourceMapOf(code: string): (position: Position) => Position {
  const { sourceMap } = transform(code, {
    ...SUCRASE_OPTIONS,
    filePath: PROGRAM_FILENAME,
    sourceMapOptions: { compiledFilename: 'program.js' },
  });
  const lookup = decodeMappings(sourceMap?.mappings ?? '');
  return (position) => lookup.originalPosition(position) ?? position;
}

/** A syntax error of sucrase (offsets in the TypeScript) or acorn (offsets in the JavaScript `text`). */
function syntaxError(error: unknown, text: string, at: (offset: number) => Position): RunError {
  let message = (error instanceof Error ? error.message : String(error)).replace(/ \(\d+:\d+\)$/, '');
  const offset = (error as { pos?: unknown }).pos;
  if (typeof offset !== 'number') return { name: 'SyntaxError', code: 'SYNTAX_ERROR', message };
  const token = /^(?:[\w$]+|\S)/.exec(text.slice(offset))?.[0];
  if (message === 'Unexpected token' && token !== undefined) message += ` ${JSON.stringify(token)}`;
  const position = at(offset);
  return { name: 'SyntaxError', code: 'SYNTAX_ERROR', message: `${message} (line ${position.line})`, ...position };
}

const NAMESPACE = /(^|[;{}])([ \t]*)((?:export\s+)?)((?:namespace|module)\s+[A-Za-z_$][\w$]*)(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*\{/gm;

/**
 * The first namespace declaration: text that looks like one at the start of a statement and that
 * sucrase removed (inside a string or a comment it stays).
 */
function findNamespace(code: string, js: string): Position | undefined {
  if (!/\b(namespace|module)\b/.test(code)) return undefined;
  const jsLines = js.split('\n');
  for (const match of code.matchAll(NAMESPACE)) {
    const start = match.index + (match[1]?.length ?? 0) + (match[2]?.length ?? 0);
    const position = positionAt(code, start);
    const keywordLine = position.line + (match[3]?.split('\n').length ?? 1) - 1;
    if (!(jsLines[keywordLine - 1] ?? '').includes(match[4] ?? '')) return position;
  }
  return undefined;
}
