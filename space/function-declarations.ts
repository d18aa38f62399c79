import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BUILD_LAYOUT } from '../core/index.js';
import type { SearchToolsResult } from './search-tools.js';

/** One top-level declaration of a module's `index.d.ts`: the names it declares and its text (doc included). */
interface Statement {
  names: string[];
  /** Declares a type (interface, type alias, enum, class) rather than a value. */
  isType: boolean;
  text: string;
}

/** The longest declaration one search match carries; a larger one is cut with a note. */
export const MAX_DECLARATION_CHARS = 12_000;

const DECLARED_NAME = /^(?:export\s+)?(?:declare\s+)?(interface|type|function|const|let|var|class|enum)\s+([A-Za-z_$][\w$]*)/;
const TYPE_KEYWORDS = new Set(['interface', 'type', 'class', 'enum']);
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

/**
 * Splits the build's declarations into top-level statements. It reads the layout the compiler writes
 * (`compiler/declarations/emit-declarations.ts`): each statement starts at column 0, with its `/** … *\/`
 * doc comment, and everything inside it is indented, so no TypeScript parser has to run on the host.
 */
function splitStatements(dts: string): Statement[] {
  const statements: Statement[] = [];
  let lines: string[] = [];
  let doc: string[] = [];
  let inDoc = false;
  const flush = (): void => {
    if (lines.length === 0) return;
    const match = DECLARED_NAME.exec(lines[0] ?? '');
    statements.push({
      names: match?.[2] ? [match[2]] : [],
      isType: TYPE_KEYWORDS.has(match?.[1] ?? ''),
      text: [...doc, ...lines].join('\n'),
    });
    lines = [];
    doc = [];
  };
  for (const line of dts.split('\n')) {
    if (inDoc) {
      doc.push(line);
      if (line.includes('*/')) inDoc = false;
      continue;
    }
    if (line.startsWith('/**')) {
      flush();
      doc = [line];
      inDoc = !line.includes('*/', 3);
      continue;
    }
    if (line === '' || line.startsWith('//')) {
      flush();
      doc = [];
      continue;
    }
    if (/^\S/.test(line) && !/^[}\])]/.test(line)) flush();
    lines.push(line);
  }
  flush();
  return statements;
}

/** The names a statement's text refers to, outside its comments and string literals. */
function referencedNames(text: string): Set<string> {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/.*$/gm, ' ')
    .replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, ' ');
  return new Set(code.match(IDENTIFIER) ?? []);
}

/**
 * The whole declaration of one function of a built module: the function and every type it uses,
 * nested parameter and result types included (transitively), in the file's order, each with its doc
 * comment. Empty when the module declares no such function.
 */
export function declarationStatements(dts: string, functionName: string): Statement[] {
  const statements = splitStatements(dts);
  const byName = new Map<string, Statement>();
  for (const statement of statements) for (const name of statement.names) byName.set(name, statement);
  const root = byName.get(functionName);
  if (root === undefined) return [];
  const included = new Set<Statement>([root]);
  const pending = [root];
  for (let statement = pending.pop(); statement !== undefined; statement = pending.pop()) {
    for (const name of referencedNames(statement.text)) {
      // Only types are followed: a name of another function (or the namespace object) is no part of this one.
      const target = byName.get(name);
      if (target === undefined || !target.isType || included.has(target)) continue;
      included.add(target);
      pending.push(target);
    }
  }
  return statements.filter((statement) => included.has(statement));
}

/**
 * Adds to each match of a `full` search the function's whole TypeScript declaration, read from the
 * build (`capabilities/<module>/index.d.ts`), so a model sees nested parameter and result shapes
 * instead of `{ … }`. A type already given with an earlier match of the same answer is named, not
 * repeated. For `detail_level: "full"` (the other levels stay short). A match given its declaration
 * leaves out what the declaration says: its signature, its parameter names, and its description when
 * the declaration's doc comment holds it word for word.
 */
export async function addDeclarations(result: SearchToolsResult, outDir: string): Promise<SearchToolsResult> {
  if (result.matches.length === 0) return result;
  const modules = [...new Set(result.matches.map((match) => match.module))];
  const files = new Map(
    await Promise.all(
      modules.map(async (module) => {
        const file = path.join(outDir, BUILD_LAYOUT.capabilitiesDir, module, BUILD_LAYOUT.moduleFiles.declarations);
        return [module, await readFile(file, 'utf8').catch(() => undefined)] as const;
      }),
    ),
  );
  const given = new Map<string, string>();
  const matches = result.matches.map((match) => {
    const dts = files.get(match.module);
    const statements = dts === undefined ? [] : declarationStatements(dts, match.function);
    if (statements.length === 0) return match;
    const parts = [`// import { ${match.function} } from '@capabilities/${match.module}';`];
    const repeated: { names: string[]; id: string }[] = [];
    for (const statement of statements) {
      const earlier = given.get(statement.text);
      if (earlier === undefined || statement.names.includes(match.function)) {
        given.set(statement.text, match.id);
        parts.push(statement.text);
        continue;
      }
      const group = repeated.find((entry) => entry.id === earlier);
      if (group) group.names.push(...statement.names);
      else repeated.push({ names: [...statement.names], id: earlier });
    }
    for (const { names, id } of repeated) parts.splice(1, 0, `// uses ${names.join(', ')}: declared above, with ${id}`);
    // The declaration says what the signature, the parameter names and (in its doc comment) the description say.
    const { signature: _signature, parameters: _parameters, description, ...rest } = match;
    const declaration = capDeclaration(parts.join('\n'));
    return description === undefined || declaration.includes(description)
      ? { ...rest, declaration }
      : { ...rest, description, declaration };
  });
  return { ...result, matches };
}

function capDeclaration(text: string): string {
  if (text.length <= MAX_DECLARATION_CHARS) return text;
  return `${text.slice(0, MAX_DECLARATION_CHARS)}\n// … cut at ${MAX_DECLARATION_CHARS} of ${text.length} characters; a type-check of code that uses it shows what it expects`;
}
