// The figures a code review of the library's shape starts from: files and lines per part, lines over
// the formatter's width, the longest functions, and the edges between parts. Run it before and after a
// redesign and compare: `node --import tsx scripts/code-figures.ts [--json] [--top N]`.
//
// The library is every non-test TypeScript file of the parts (the folders of ../shared/DESIGN.md's table)
// and the package root; tests, contract suites, fixtures, test support and generated files are left out.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PARTS = [
  'core',
  'config',
  'sources',
  'compiler',
  'runtime',
  'bridge',
  'std',
  'space',
  'store',
  'durable',
  'worker',
  'planner',
  'agents',
  'server',
  'studio',
  'eval',
  'cli',
];
const WIDTH = 140;
const LEFT_OUT = /(__fixtures__|node_modules|\.test\.ts$|\.contract\.ts$|test-support|\/generated\/|\.d\.ts$|eval\/suites\/)/;

interface FunctionFigure {
  file: string;
  name: string;
  lines: number;
}

function libraryFiles(): string[] {
  const files = [path.join(ROOT, 'index.ts')];
  for (const part of PARTS) {
    let entries;
    try {
      entries = readdirSync(path.join(ROOT, part), { withFileTypes: true, recursive: true });
    } catch {
      continue; // a part that does not exist (yet, or any more)
    }
    for (const entry of entries) {
      const file = path.join(entry.parentPath, entry.name);
      if (entry.isFile() && /\.tsx?$/.test(entry.name) && !LEFT_OUT.test(file.split(path.sep).join('/'))) files.push(file);
    }
  }
  return files.sort();
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (parent && ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

function functionsOf(file: string, text: string): FunctionFigure[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionFigure[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file: path.relative(ROOT, file), name: nameOf(node, source), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function partOf(file: string): string {
  const relative = path.relative(ROOT, file).split(path.sep);
  return relative.length === 1 ? 'root' : (relative[0] as string);
}

function partEdges(files: string[]): string[] {
  const edges = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const specifier = match[1] ?? match[2] ?? '';
      if (!specifier.startsWith('.')) continue;
      const from = partOf(file);
      const to = partOf(path.resolve(path.dirname(file), specifier));
      if (from !== to && from !== 'root' && to !== 'root') edges.add(`${from} → ${to}`);
    }
  }
  return [...edges].sort();
}

const args = process.argv.slice(2);
const top = Number(args[args.indexOf('--top') + 1] || 10) || 10;
const files = libraryFiles();
const perPart: Record<string, { files: number; lines: number }> = {};
let lines = 0;
let wide = 0;
let widest = 0;
const functions: FunctionFigure[] = [];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const fileLines = text.split('\n');
  lines += fileLines.length;
  for (const line of fileLines) {
    if (line.length > WIDTH) wide += 1;
    widest = Math.max(widest, line.length);
  }
  const part = partOf(file);
  perPart[part] ??= { files: 0, lines: 0 };
  perPart[part].files += 1;
  perPart[part].lines += fileLines.length;
  functions.push(...functionsOf(file, text));
}
functions.sort((a, b) => b.lines - a.lines);
const edges = partEdges(files);
const figures = {
  files: files.length,
  lines,
  linesOverWidth: wide,
  widestLine: widest,
  functionsOver150Lines: functions.filter((fn) => fn.lines > 150).length,
  longestFunctions: functions.slice(0, top),
  partEdges: edges,
  perPart,
};

if (args.includes('--json')) {
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} else {
  const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
  out(`library: ${figures.files} files, ${figures.lines} lines`);
  out(`lines over ${WIDTH} characters: ${wide} (widest ${widest})`);
  out(`functions over 150 lines: ${figures.functionsOver150Lines}`);
  out(`longest functions:`);
  for (const fn of figures.longestFunctions) out(`  ${String(fn.lines).padStart(4)}  ${fn.file}  ${fn.name}`);
  out(`edges between parts (${edges.length}):`);
  for (const edge of edges) out(`  ${edge}`);
  out(`per part:`);
  for (const [part, figure] of Object.entries(perPart).sort((a, b) => b[1].lines - a[1].lines))
    out(`  ${part.padEnd(10)} ${String(figure.files).padStart(4)} files ${String(figure.lines).padStart(6)} lines`);
}
