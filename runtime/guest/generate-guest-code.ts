/**
 * Makes generated/guest-code.ts, the JavaScript every engine evaluates first in a fresh context, from
 * the guest sources in src/: TypeScript scripts that share one scope (checked by src/tsconfig.json
 * against the ES library alone, what a sandbox has).
 *
 *   node --import tsx runtime/guest/generate-guest-code.ts           writes generated/guest-code.ts
 *   node --import tsx runtime/guest/generate-guest-code.ts --check   exits 1 when it is stale
 *
 * The output is checked in and is plain strings, so every place the package runs loads the same text
 * without a transform: the sources under vitest and tsx, dist/ after `tsc`, an installed package on
 * any Node line, Bun or Deno. (Function.prototype.toString of functions loaded here would not do:
 * tsx and esbuild add `__name(...)` calls to them.) guest-code.test.ts fails when it is stale.
 *
 * What it makes: one function expression whose parameters are the host functions src/host.d.ts
 * declares, in their order. Its body is `'use strict'`, the host values src/host.d.ts declares as
 * `const`s (written from host-values.ts when the generated module loads), every guest file in
 * GUEST_FILES order with its types stripped by sucrase (as programs are; every line stays where it
 * was, after a `// src/<file>` line), and `return BOOTSTRAP_EXPORTS;`.
 */
import { readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'acorn';
import { transform } from 'sucrase';
import ts from 'typescript';
import { HOST_VALUES } from './host-values.js';

const GUEST_DIR = path.dirname(fileURLToPath(import.meta.url));
const SOURCE_DIR = path.join(GUEST_DIR, 'src');
export const GENERATED_FILE = path.join(GUEST_DIR, 'generated', 'guest-code.ts');
export const REGENERATE_COMMAND = 'node --import tsx runtime/guest/generate-guest-code.ts';

/** The Web globals' files, in the order they install them: evaluated on first use (see {@link ON_FIRST_USE}). */
const WEB_GLOBAL_FILES = [
  'dom-exception.ts',
  'base64.ts',
  'text-encoding.ts',
  'url-search-params.ts',
  'url.ts',
  'structured-clone.ts',
] as const;

/**
 * The guest files in the order their top-level statements run: intrinsics are captured first, before
 * anything else runs; the globals are installed in this order (as a program sees them listed).
 */
export const GUEST_FILES = [
  'intrinsics.ts',
  'engine-quirks.ts',
  'json.ts',
  'helpers.ts',
  'console.ts',
  'calls.ts',
  'run.ts',
  'timers.ts',
  ...WEB_GLOBAL_FILES,
  'bootstrap-exports.ts',
] as const;

/**
 * The guest files evaluated on first use (one group, contiguous in GUEST_FILES): the Web globals a program
 * may never touch. Their text is kept as a string and compiled when a program first reads one of the
 * globals they install (src/helpers.ts `installLazyGlobals`), so a fresh context does not parse it: on
 * QuickJS parsing is most of what the bootstrap costs (measured: ~37% less to evaluate without them).
 */
export const ON_FIRST_USE: ReadonlySet<string> = new Set(WEB_GLOBAL_FILES);

/** The declarations file of what the host gives the guest. */
export const HOST_DECLARATIONS = 'host.d.ts';
/** Where a host value goes in the assembled text (a comment and `null`, so the text parses as it is). */
const HOST_VALUE_MARK = '/*host:';
const HOST_VALUE = /\/\*host:(\w+)\*\/null/g;
/** The constant the last guest file declares and the bootstrap returns. */
const EXPORTS_NAME = 'BOOTSTRAP_EXPORTS';

export interface GuestSource {
  /** The file's name inside src/ (used in messages and in the marker line). */
  name: string;
  text: string;
  /** Evaluated when a program first reads a global it installs (see {@link ON_FIRST_USE}). */
  onFirstUse?: boolean;
}

/** A guest source the generator cannot turn into guest code; the message names the file and line. */
export class GuestSourceError extends Error {
  override readonly name = 'GuestSourceError';
}

export interface HostInterface {
  /** The bootstrap function's parameters, in order. */
  functions: string[];
  /** The host values, in their order in host.d.ts. */
  values: string[];
}

/** Reads src/host.d.ts: its `declare function`s and `declare const`s (interfaces and types are for the checker only). */
export function readHostInterface(source: GuestSource): HostInterface {
  const file = ts.createSourceFile(source.name, source.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const functions: string[] = [];
  const values: string[] = [];
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name !== undefined) functions.push(statement.name.text);
    else if (ts.isVariableStatement(statement) && (statement.declarationList.flags & ts.NodeFlags.Const) !== 0) {
      for (const declaration of statement.declarationList.declarations) {
        if (!ts.isIdentifier(declaration.name)) throw sourceError(source, file, declaration, 'a host value must be a plain name');
        values.push(declaration.name.text);
      }
    } else if (!ts.isInterfaceDeclaration(statement) && !ts.isTypeAliasDeclaration(statement)) {
      throw sourceError(
        source,
        file,
        statement,
        'only `declare function` (a host function), `declare const` (a host value), interfaces and types belong here',
      );
    }
  }
  if (functions.length === 0) throw new GuestSourceError(`${source.name}: declares no host function; the bootstrap needs at least one`);
  return { functions, values };
}

/**
 * The guest code of one file: its types stripped, every line where it was. Refuses what is not plain
 * guest code — module syntax (the files share one scope), `declare` (host.d.ts says what the host
 * gives), and TypeScript that compiles to code of its own (enums, namespaces, parameter properties).
 */
export function stripGuestFile(source: GuestSource): string {
  const file = ts.createSourceFile(source.name, source.text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  for (const statement of file.statements) {
    if (
      ts.isImportDeclaration(statement) ||
      ts.isImportEqualsDeclaration(statement) ||
      ts.isExportDeclaration(statement) ||
      ts.isExportAssignment(statement)
    ) {
      throw sourceError(
        source,
        file,
        statement,
        'imports and exports are not guest code: the guest files share one scope (use the name directly)',
      );
    }
    const modifiers = ts.canHaveModifiers(statement) ? (ts.getModifiers(statement) ?? []) : [];
    for (const modifier of modifiers) {
      if (modifier.kind === ts.SyntaxKind.ExportKeyword)
        throw sourceError(source, file, modifier, '`export` is not guest code: the guest files share one scope');
      if (modifier.kind === ts.SyntaxKind.DeclareKeyword)
        throw sourceError(source, file, modifier, `\`declare\` belongs in ${HOST_DECLARATIONS} (what the host gives the guest)`);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isEnumDeclaration(node)) throw sourceError(source, file, node, 'an enum compiles to code of its own; use constants');
    if (ts.isModuleDeclaration(node))
      throw sourceError(source, file, node, 'a namespace compiles to code of its own; use plain declarations');
    if (ts.isParameter(node) && ts.isConstructorDeclaration(node.parent) && ts.getModifiers(node)?.length) {
      throw sourceError(source, file, node, 'a parameter property compiles to code of its own; assign the field in the constructor');
    }
    if (ts.canHaveDecorators(node) && ts.getDecorators(node)?.length)
      throw sourceError(source, file, node, 'decorators are not guest code');
    ts.forEachChild(node, visit);
  };
  visit(file);
  let code: string;
  try {
    code = transform(source.text, { transforms: ['typescript'], disableESTransforms: true, filePath: source.name }).code;
  } catch (error) {
    throw new GuestSourceError(`${source.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (lineCount(code) !== lineCount(source.text))
    throw new GuestSourceError(`${source.name}: stripping its types moved its lines (${lineCount(source.text)} → ${lineCount(code)})`);
  return code;
}

/** What the generator assembles from the guest files. */
export interface AssembledGuestCode {
  /** The bootstrap function's text, with `/*host:<name>*\/null` where the value of host value `<name>` goes. */
  bootstrap: string;
  /**
   * The files evaluated on first use, as a function expression of every outside name they use (see
   * {@link onFirstUseGroup}); what the host's `firstUseSource` callback returns. '' when there are none.
   */
  firstUseSource: string;
}

/** `sources` are the guest files in the order they run; the last one declares BOOTSTRAP_EXPORTS. */
export function assembleBootstrap(host: HostInterface, sources: readonly GuestSource[]): AssembledGuestCode {
  const last = sources.at(-1);
  if (last === undefined || !new RegExp(`^const ${EXPORTS_NAME}\\b`, 'm').test(last.text)) {
    throw new GuestSourceError(
      `${last?.name ?? 'the guest files'}: the last guest file must declare \`const ${EXPORTS_NAME}\`, what the bootstrap returns`,
    );
  }
  if (last.onFirstUse === true) throw new GuestSourceError(`${last.name}: the last guest file runs with the bootstrap, not on first use`);
  const lazyAt = sources.findIndex((source) => source.onFirstUse === true);
  const lazyCount = sources.filter((source) => source.onFirstUse === true).length;
  if (lazyAt >= 0 && sources.slice(lazyAt, lazyAt + lazyCount).some((source) => source.onFirstUse !== true))
    throw new GuestSourceError('the guest files evaluated on first use must follow each other in GUEST_FILES');
  const code = sources.map((source) => {
    if (source.text.includes(HOST_VALUE_MARK))
      throw new GuestSourceError(`${source.name}: contains ${HOST_VALUE_MARK}, the generator's mark for a host value`);
    return { name: source.name, code: stripGuestFile(source).replace(/\n$/, ''), onFirstUse: source.onFirstUse === true };
  });
  const lines = [`(function (${host.functions.join(', ')}) {'use strict';`];
  if (host.values.length > 0) lines.push(`const ${host.values.map((name) => `${name} = ${HOST_VALUE_MARK}${name}*/null`).join(', ')};`);
  let firstUseSource = '';
  for (const [index, file] of code.entries()) {
    if (!file.onFirstUse) lines.push(`// src/${file.name}`, file.code);
    else if (index === lazyAt) {
      const group = onFirstUseGroup(host, code.slice(0, lazyAt), code.slice(lazyAt, lazyAt + lazyCount));
      lines.push(...group.lines);
      firstUseSource = group.source;
    }
  }
  lines.push(`return ${EXPORTS_NAME};`, '})');
  const bootstrap = lines.join('\n');
  for (const [what, text] of [
    ['bootstrap', bootstrap],
    ['source of the files evaluated on first use', firstUseSource],
  ] as const) {
    if (text === '') continue;
    let body: readonly unknown[];
    try {
      body = parse(text, { ecmaVersion: 2022, sourceType: 'script' }).body;
    } catch (error) {
      throw new GuestSourceError(
        `the assembled ${what} is not valid ES2022 script: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    // What the engines evaluate (the bootstrap) and installLazyGlobals compiles after `return ` (the source) is one function expression.
    const [statement] = body as { type: string; expression?: { type: string } }[];
    if (body.length !== 1 || statement?.type !== 'ExpressionStatement' || statement.expression?.type !== 'FunctionExpression')
      throw new GuestSourceError(`the assembled ${what} is not one function expression`);
  }
  return { bootstrap, firstUseSource };
}

interface GuestCode {
  name: string;
  /** The file's code, types stripped. */
  code: string;
}

/** The name the files evaluated on first use install their globals through (a collector replaces it there). */
const INSTALL_GLOBAL = 'installGlobal';
/** The eager function (src/helpers.ts) that makes the group's globals accessors. */
const INSTALL_LAZY_GLOBALS = 'installLazyGlobals';

/**
 * The files evaluated on first use: `source`, their code as a function whose parameters are every name the
 * files use from outside them (the earlier files' declarations, the host's functions and values, the
 * global built-ins), then `installGlobal` — kept on the host (the `firstUseSource` callback), so a fresh
 * context neither holds nor scans it (on QuickJS, scanning it as a string literal cost ~2 ms a context);
 * and `lines`, what stands for them in the bootstrap: one call of `installLazyGlobals(names, captured)`,
 * `captured` being those names' values, read there, as the bootstrap runs — before any program could
 * replace a built-in.
 */
function onFirstUseGroup(
  host: HostInterface,
  before: readonly GuestCode[],
  group: readonly GuestCode[],
): { lines: string[]; source: string } {
  const outside = namesFromOutside(host, before, group);
  if (!outside.includes(INSTALL_GLOBAL))
    throw new GuestSourceError(`${group.map((file) => file.name).join(', ')}: install no global through ${INSTALL_GLOBAL}`);
  const installed = group.flatMap((file) => installedNames(file));
  const parameters = [...outside.filter((name) => name !== INSTALL_GLOBAL), INSTALL_GLOBAL];
  const source = [
    `(function (${parameters.join(', ')}) {'use strict';`,
    ...group.flatMap((file) => [`// src/${file.name}`, file.code]),
    '})',
  ].join('\n');
  return {
    lines: [
      `// ${group.map((file) => `src/${file.name}`).join(', ')}: evaluated on first use (${INSTALL_LAZY_GLOBALS} in src/helpers.ts), from FIRST_USE_SOURCE`,
      `${INSTALL_LAZY_GLOBALS}(${JSON.stringify(installed)}, [${parameters.slice(0, -1).join(', ')}]);`,
    ],
    source,
  };
}

/** The globals a file evaluated on first use installs: each `installGlobal('<name>', value)` at its top level. */
function installedNames(file: GuestCode): string[] {
  const tree = ts.createSourceFile(file.name, file.code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === INSTALL_GLOBAL) {
      const [name] = node.arguments;
      if (name === undefined || !ts.isStringLiteral(name) || node.parent.parent !== tree)
        throw sourceError(
          { name: file.name, text: file.code },
          tree,
          node,
          `${INSTALL_GLOBAL} takes a name written as a string, at the top level`,
        );
      names.push(name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return names;
}

/**
 * Every name the group's code uses that it does not declare itself, resolved by TypeScript over all the
 * guest code (scripts sharing one scope) and ES2022's library. Refused: a `let` or `var` of an earlier
 * file (its value could change after it was captured) and a name nothing declares.
 */
function namesFromOutside(host: HostInterface, before: readonly GuestCode[], group: readonly GuestCode[]): string[] {
  const fileOf = (name: string): string => `/guest/${name.replace(/\.ts$/, '.js')}`;
  const files = new Map<string, string>();
  for (const file of [...before, ...group]) files.set(fileOf(file.name), file.code);
  files.set(
    '/guest/host.d.ts',
    [
      ...host.functions.map((name) => `declare function ${name}(...args: any[]): any;`),
      ...host.values.map((name) => `declare const ${name}: any;`),
    ].join('\n'),
  );
  const options: ts.CompilerOptions = {
    allowJs: true,
    checkJs: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: [],
  };
  const base = ts.createCompilerHost(options);
  const program = ts.createProgram({
    rootNames: [...files.keys()],
    options,
    host: {
      ...base,
      fileExists: (name) => files.has(name) || base.fileExists(name),
      readFile: (name) => files.get(name) ?? base.readFile(name),
      getSourceFile: (name, language) => {
        const text = files.get(name);
        if (text === undefined) return base.getSourceFile(name, language);
        return ts.createSourceFile(name, text, language, true, name.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
      },
    },
  });
  const checker = program.getTypeChecker();
  const inGroup = new Set(group.map((file) => fileOf(file.name)));
  const names = new Set<string>();
  // Each identifier that reads a binding in `file`, with the file's tree (for messages).
  const eachReference = (file: GuestCode, use: (node: ts.Identifier, tree: ts.SourceFile) => void): void => {
    const tree = program.getSourceFile(fileOf(file.name));
    if (tree === undefined) throw new GuestSourceError(`${file.name}: TypeScript did not read it`);
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && isReference(node)) use(node, tree);
      ts.forEachChild(node, visit);
    };
    visit(tree);
  };
  for (const file of group) {
    eachReference(file, (node, tree) => {
      const symbol = ts.isShorthandPropertyAssignment(node.parent)
        ? checker.getShorthandAssignmentValueSymbol(node.parent)
        : checker.getSymbolAtLocation(node);
      const declaration = symbol?.declarations?.[0];
      if (node.text === 'globalThis') names.add(node.text);
      else if (node.text === 'arguments') {
        // At the top level, or in an arrow function there, `arguments` would be the generated function's: the captured values.
        if (ts.findAncestor(node, (ancestor) => ts.isFunctionLike(ancestor) && !ts.isArrowFunction(ancestor)) === undefined)
          throw sourceError({ name: file.name, text: file.code }, tree, node, '`arguments` outside a function is not guest code');
      } else if (symbol === undefined || declaration === undefined) {
        if (node.text !== 'undefined')
          throw sourceError({ name: file.name, text: file.code }, tree, node, `\`${node.text}\` is declared nowhere`);
      } else if (!inGroup.has(declaration.getSourceFile().fileName) && (symbol.flags & OUTSIDE_VALUE) !== 0) {
        const mutable = ts.isVariableDeclaration(declaration) && (ts.getCombinedNodeFlags(declaration) & ts.NodeFlags.Const) === 0;
        if (mutable && declaration.getSourceFile().fileName.startsWith('/guest/'))
          throw sourceError(
            { name: file.name, text: file.code },
            tree,
            node,
            `\`${node.text}\` is a let or var of an earlier file: code evaluated on first use gets the values names had when the bootstrap ran`,
          );
        names.add(node.text);
      }
    });
  }
  // The earlier files run with the bootstrap: a name of the group is not there yet (it would be whatever
  // the program put on the global object by that name).
  for (const file of before) {
    eachReference(file, (node, tree) => {
      const declaration = checker.getSymbolAtLocation(node)?.declarations?.[0];
      if (declaration !== undefined && inGroup.has(declaration.getSourceFile().fileName))
        throw sourceError(
          { name: file.name, text: file.code },
          tree,
          node,
          `\`${node.text}\` is declared in a file evaluated on first use; reach it through what that file registers`,
        );
    });
  }
  return [...names].sort();
}

const OUTSIDE_VALUE = ts.SymbolFlags.Variable | ts.SymbolFlags.Function | ts.SymbolFlags.Class;

/** Whether an identifier reads a binding (not a property name, a label or a name being declared). */
function isReference(node: ts.Identifier): boolean {
  const parent = node.parent;
  if ((ts.isPropertyAccessExpression(parent) || ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent)) && parent.name === node)
    return false;
  if (
    (ts.isGetAccessorDeclaration(parent) || ts.isSetAccessorDeclaration(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name === node
  )
    return false;
  if (ts.isLabeledStatement(parent) || ts.isBreakOrContinueStatement(parent)) return false;
  if (ts.isBindingElement(parent) && parent.propertyName === node) return false;
  return true;
}

/** The text of generated/guest-code.ts for the guest files as they are on disk. */
export function generateGuestCode(sourceDir = SOURCE_DIR): string {
  const read = (name: string): GuestSource => ({ name, text: readFileSync(path.join(sourceDir, name), 'utf8') });
  const listed = new Set<string>([...GUEST_FILES, HOST_DECLARATIONS]);
  const unlisted = readdirSync(sourceDir).filter((name) => name.endsWith('.ts') && !listed.has(name));
  if (unlisted.length > 0)
    throw new GuestSourceError(
      `${unlisted.join(', ')} in ${path.relative(process.cwd(), sourceDir) || '.'}: not in GUEST_FILES of generate-guest-code.ts; add each where its statements should run`,
    );
  const host = readHostInterface(read(HOST_DECLARATIONS));
  const missing = host.values.filter((name) => !Object.hasOwn(HOST_VALUES, name));
  const extra = Object.keys(HOST_VALUES).filter((name) => !host.values.includes(name));
  if (missing.length > 0 || extra.length > 0) {
    throw new GuestSourceError(
      `host values: ${HOST_DECLARATIONS} declares ${host.values.join(', ')} and host-values.ts gives ${Object.keys(HOST_VALUES).join(', ')}; make them the same names`,
    );
  }
  const { bootstrap, firstUseSource } = assembleBootstrap(
    host,
    GUEST_FILES.map((name) => ({ ...read(name), onFirstUse: ON_FIRST_USE.has(name) })),
  );
  const withHostValues = (text: string): string =>
    escapeTemplate(text).replace(HOST_VALUE, (_match, name: string) => `\${hostValue('${name}')}`);
  return [
    `// Generated by runtime/guest/generate-guest-code.ts from runtime/guest/src/ — do not edit.`,
    `// After changing a guest source: ${REGENERATE_COMMAND}`,
    `import { HOST_VALUES, type HostValueName } from '../host-values.js';`,
    '',
    'const hostValue = (name: HostValueName): string => JSON.stringify(HOST_VALUES[name]);',
    '',
    '/**',
    ` * The guest code every engine evaluates first in a fresh context: a function expression of the host's`,
    ` * ${host.functions.length} callbacks (${host.functions.join(', ')}). Calling it installs the sandbox's globals and returns`,
    ' * `{ deliver, run, wake }` (src/host.d.ts `BootstrapExports`).',
    ' */',
    `export const BOOTSTRAP_FUNCTION = \`${withHostValues(bootstrap)}\`;`,
    '',
    '/**',
    ` * The guest files evaluated on first use (${[...ON_FIRST_USE].join(', ')}): a function expression of`,
    ' * every outside name they use, which the host hands the guest through its `firstUseSource` callback when a',
    ' * program first reads one of the globals they install (src/helpers.ts `installLazyGlobals`).',
    ' */',
    `export const FIRST_USE_SOURCE = \`${withHostValues(firstUseSource)}\`;`,
    '',
  ].join('\n');
}

function escapeTemplate(text: string): string {
  return text.replace(/\\|`|\$\{/g, (match) => `\\${match}`);
}

function lineCount(text: string): number {
  return text.split('\n').length;
}

function sourceError(source: GuestSource, file: ts.SourceFile, node: ts.Node, message: string): GuestSourceError {
  const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
  return new GuestSourceError(`${source.name}:${line + 1}: ${message}`);
}

function main(argv: string[]): number {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      `Usage: ${REGENERATE_COMMAND} [--check]\n\nWrites runtime/guest/generated/guest-code.ts from runtime/guest/src/.\n  --check  write nothing; exit 1 when the generated file differs from what the sources make\n`,
    );
    return 0;
  }
  const unknown = argv.filter((argument) => argument !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`unknown argument ${unknown[0]}; see --help\n`);
    return 2;
  }
  let text: string;
  try {
    text = generateGuestCode();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const relative = path.relative(process.cwd(), GENERATED_FILE);
  if (argv.includes('--check')) {
    const current = readFileSync(GENERATED_FILE, 'utf8');
    if (current === text) return 0;
    process.stderr.write(`${relative} is stale: run ${REGENERATE_COMMAND}\n`);
    return 1;
  }
  // Written beside and renamed: never half a file.
  const temporary = `${GENERATED_FILE}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, GENERATED_FILE);
  process.stdout.write(`wrote ${relative}\n`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = main(process.argv.slice(2));
