// Every hint a message gives must be something the user can type: a config setting the config schema
// takes (`sandbox.timeoutMs`, `mcpServers.<server>.sideEffects`) or an option the CLI takes (`--timeout`).
// This reads every string the code writes (literals and the text parts of template literals) and checks
// each setting path and each flag it names against the zod schema and the CLI's option table.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../cli/options.js';
import { configSchema } from '../config/schema.js';
import { REPO } from './support/example-space.js';

/** The parts whose messages reach a user (studio's SPA and the examples are not messages of ours). */
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
  'planner',
  'agents',
  'server',
  'studio/server',
  'cli',
  'eval',
];

/** Flags of Node and other programs that messages rightly name. */
const OTHER_PROGRAMS_FLAGS = new Set([
  '--no-node-snapshot',
  '--conditions',
  '--import',
  '--no',
  '--save',
  '--save-dev',
  '--omit',
  '--include',
  '--strict',
  '--noEmit',
  // tsc's (the native one-shot check runs it with --pretty false --listFiles)
  '--pretty',
  '--listFiles',
  '--max-old-space-size',
  '--prefix',
  '--yes',
]);

/**
 * The words a setting path may start with: the config's top-level keys, and `limits`, which messages
 * once named as if it were a setting (it is the library's run option; the config's is `sandbox`).
 * (`config.requiresApproval` is a field of a `defineTool` definition, named in its own checks.)
 */
const ROOTS = [...Object.keys(configSchema.shape), 'limits'];

/** Development scripts inside the parts, with flags of their own (not messages a user of the CLI reads). */
const DEVELOPMENT_SCRIPTS = new Set(['runtime/guest/generate-guest-code.ts']);

function sourceFiles(folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const file = path.join(folder, entry);
    if (entry === 'node_modules' || entry === '__fixtures__' || entry === 'test-support' || entry.startsWith('.')) return [];
    if (statSync(file).isDirectory()) return sourceFiles(file);
    if (DEVELOPMENT_SCRIPTS.has(path.relative(REPO, file).split(path.sep).join('/'))) return [];
    return /\.ts$/.test(entry) && !/\.(test|contract|d)\.ts$/.test(entry) ? [file] : [];
  });
}

/** The text of every string literal and template literal (its expressions as `${}`), with where it is. */
function stringsOf(file: string): { text: string; where: string }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: { text: string; where: string }[] = [];
  const where = (node: ts.Node): string => `${path.relative(REPO, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push({ text: node.text, where: where(node) });
    else if (ts.isTemplateExpression(node))
      found.push({ text: [node.head.text, ...node.templateSpans.map((span) => `\${}${span.literal.text}`)].join(''), where: where(node) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A zod (4) schema's definition: its kind and what it wraps. */
interface Definition {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
}

/** Unwraps optional, default, nullable, pipes and unions down to the schemas that hold a shape or a record. */
function inner(schema: z.ZodType): Definition[] {
  const definition = (schema as unknown as { def: Definition }).def;
  if (['optional', 'nullable', 'default', 'prefault', 'readonly'].includes(definition.type) && definition.innerType)
    return inner(definition.innerType);
  if (definition.type === 'pipe' && definition.in) return inner(definition.in);
  if (definition.type === 'union') return (definition.options ?? []).flatMap(inner);
  return [definition];
}

/**
 * Setting paths a string names: a root word, then `.segment`s (`sandbox.timeoutMs`, `mcpServers.<server>.sideEffects`,
 * `limits.memoryLimitMb`). Not a module path or file (`@capabilities/…`, `config.ts`, `store.close`): the root must
 * not follow `@`, `/`, `.` or a letter, and a path that ends in a file extension or a call is no setting.
 */
function settingPathsIn(text: string): string[] {
  const pattern = new RegExp(
    `(?<![@/.\\w$-])(${ROOTS.join('|')})((?:\\.(?:<[a-z-]+>|\\*|\\$\\{\\}|[A-Za-z][A-Za-z0-9]*))+)(?![\\w(])`,
    'g',
  );
  const paths: string[] = [];
  for (const match of text.matchAll(pattern)) {
    const full = match[0];
    if (/\.(ts|js|mjs|mts|json|d|md|yaml|yml)$/.test(full)) continue;
    paths.push(full);
  }
  return paths;
}

/** Flags a string names: `--word` not inside a longer token (an em dash pair `--` alone is no flag). */
function flagsIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w-])--([a-z][A-Za-z0-9-]*)/g)].map((match) => `--${match[1]}`);
}

/** Whether a setting path names a setting of the config schema; `<name>`, `*` and `${}` stand for any key of a record. */
function settingIsKnown(settingPath: string): boolean {
  return isSetting(
    configSchema,
    settingPath.split('.').map((segment) => (/^(<[a-z-]+>|\*|\$\{\})$/.test(segment) ? undefined : segment)),
  );
}

/** `undefined` segments are a record's keys: any name. */
function isSetting(schema: z.ZodType, segments: (string | undefined)[]): boolean {
  if (segments.length === 0) return true;
  const [first, ...rest] = segments;
  return inner(schema).some((definition) => {
    if (definition.type === 'record' && definition.valueType) return isSetting(definition.valueType, rest);
    if (definition.type === 'object' && definition.shape && first !== undefined)
      return Object.hasOwn(definition.shape, first) && isSetting(definition.shape[first] as z.ZodType, rest);
    return false;
  });
}

const strings = PARTS.flatMap((part) => sourceFiles(path.join(REPO, part))).flatMap(stringsOf);

describe('hints in messages', () => {
  it('finds the strings of the code (the scan itself works)', () => {
    expect(strings.length).toBeGreaterThan(1000);
    expect(settingPathsIn('raise sandbox.timeoutMs, or set mcpServers.<server>.sideEffects')).toEqual([
      'sandbox.timeoutMs',
      'mcpServers.<server>.sideEffects',
    ]);
    expect(settingPathsIn('see @capabilities/std and agent-spaces.config.json, outDir/catalog.json')).toEqual([]);
    expect(settingIsKnown('sandbox.timeoutMs')).toBe(true);
    expect(settingIsKnown('mcpServers.<server>.sideEffects')).toBe(true);
    expect(settingIsKnown('limits.timeoutMs')).toBe(false);
    expect(settingIsKnown('sandbox.timeoutMS')).toBe(false);
    expect(settingIsKnown('std.fs.root')).toBe(true);
    expect(flagsIn('use --timeout or --no-check — not -- alone')).toEqual(['--timeout', '--no-check']);
  });

  it('name only settings the config schema takes', () => {
    const unknown = strings.flatMap(({ text, where }) =>
      settingPathsIn(text)
        .filter((setting) => !settingIsKnown(setting))
        .map((setting) => `${where}: ${setting}`),
    );
    expect(unknown).toEqual([]);
  });

  it('name only options the CLI takes (or flags of Node and npm)', () => {
    const options = new Set(Object.keys(OPTIONS).map((name) => `--${name}`));
    const unknown = strings.flatMap(({ text, where }) =>
      flagsIn(text)
        .filter((flag) => !options.has(flag) && !OTHER_PROGRAMS_FLAGS.has(flag))
        .map((flag) => `${where}: ${flag}`),
    );
    expect(unknown).toEqual([]);
  });
});
