/**
 * Adding a kind of capability source is one folder and one line (sources/<kind>/ and
 * `configuredSources()` in sources/index.ts): no code outside a source's own folder treats a kind by
 * its name. Such code compares an origin's `kind` with a name (`kind === 'mcp'`, `case 'openapi':`) or
 * writes an origin of that kind (`kind: 'openapi'`); either is a place a new kind would be added by
 * hand. What the compiler, the space and the studio need to know about a kind, the source declares
 * (`CapabilitySource.describe`, `title`, `schemaNames`, `secrets`, `callers`, its origin's shape in
 * `CapabilityOrigins`). Comments, docs and tests may name kinds. The exceptions are listed, each with why.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeFiles, withoutComments } from './support/code-files.js';
import { kindsOf } from '../core/index.js';
import { configuredSources } from '../sources/index.js';
import { STD_SOURCE_KIND } from '../space/index.js';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** Folders that are not library code: tests and their helpers, benchmarks, scripts, build output, data. */
const SKIPPED = new Set([
  'node_modules',
  'dist',
  '.git',
  '.tmp',
  '.agent-spaces',
  '.peers',
  '__fixtures__',
  'test',
  'test-support',
  'bench',
  'scripts',
]);
/** Every kind there is: those `sources/` configures, the standard library's, the agents'. */
const KINDS = [...configuredSources().flatMap((source) => kindsOf(source)), STD_SOURCE_KIND, 'agent'];
/** Where each kind's source lives: its folder may name its own kinds. */
const HOMES: Record<string, string[]> = {
  'sources/files/': ['json', 'typescript'],
  'sources/mcp/': ['mcp'],
  'sources/openapi/': ['openapi'],
  'sources/sdk/': ['sdk'],
  'agents/': ['agent'],
};
/** Code outside a kind's home that names it, each with why. */
const EXCEPTIONS: Record<string, string> = {
  'sources/files/tool-definition.ts: std':
    "defineTool's raw form is shared by tool files and the standard library's host tools: a std tool is labelled std:<name>, not by a path",
  'compiler/build-capabilities.ts: std':
    'the aggregate @capabilities/std module (STD_MODULE) re-exports every std-* module: a compiler feature only the standard library has',
  'compiler/catalog.ts: std': "the catalog marks the standard library's entries (standard: true) so search ranks the space's own first",
  'compiler/signature.ts: std': 'a placeholder origin for a function shown without its module (the signature does not read it)',
  'server/code-tools.ts: std': "the code tool's description lists the aggregate std module among the importable ones",
  'cli/commands/sample.ts: mcp':
    '`capabilities sample` samples results of MCP tools without an output schema: an MCP-only feature (mcp-text results)',
  'space/host/create-host.ts: mcp':
    'spaces of one host share MCP connections: the host gives each space an MCP source over its one pool of connections (keyed by server and credentials) in place of the default one',
  'studio/server/api-starter.ts: agent': "a first program prefers a module whose calls need no model: an agent's do",
};

/** `file: kind` for every place code treats a kind by its name outside the kind's home. */
function kindsNamed(): string[] {
  const names = KINDS.join('|');
  const asKind = new RegExp(`\\bkind\\s*(?:===|!==|==|!=|:)\\s*['"\`](${names})['"\`]|\\bcase\\s+['"\`](${names})['"\`]\\s*:`, 'g');
  return codeFiles(ROOT, SKIPPED).flatMap((file) => {
    const relative = path.relative(ROOT, file).split(path.sep).join('/');
    const own = Object.entries(HOMES).flatMap(([home, kinds]) => (relative.startsWith(home) ? kinds : []));
    const found = [...withoutComments(readFileSync(file, 'utf8')).matchAll(asKind)].map((match) => match[1] ?? match[2] ?? '');
    return [...new Set(found.filter((kind) => !own.includes(kind)))].map((kind) => `${relative}: ${kind}`);
  });
}

describe('source kinds', () => {
  it('are named in code only by their own source (and the listed exceptions)', () => {
    expect(kindsNamed().filter((hit) => EXCEPTIONS[hit] === undefined)).toEqual([]);
  });
  it('lists only exceptions still taken, and finds kinds where they are named (the check is not vacuous)', () => {
    const found = kindsNamed();
    expect(Object.keys(EXCEPTIONS).filter((exception) => !found.includes(exception))).toEqual([]);
    expect(KINDS).toEqual(expect.arrayContaining(['json', 'typescript', 'mcp', 'openapi', 'std', 'agent']));
  });
});
