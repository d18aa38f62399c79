/**
 * Result types inferred from what an MCP server returned (a store file beside the build output): hostile
 * property names give valid, inert declarations; ever-changing, deep or wide results keep the store and
 * the declarations bounded; a store that is a symlink, over its cap, a FIFO or a device is neither
 * written through, trusted, waited on nor read.
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, stat, symlink, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createResultRecorder } from '../../bridge/index.js';
import { applyInferredResults, readInferredResults } from '../../compiler/index.js';
import { emitDeclarations } from '../../compiler/declarations/emit-declarations.js';
import type { ResolvedConfig } from '../../config/index.js';
import { MAX_INFERRED_FILE_BYTES, type CapabilitySpec, type FunctionSpec } from '../../core/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { typeCheckFiles } from '../support/tsc.js';

describe('inferred result types from a hostile MCP server', () => {
  const MODULE = 'mcp-hostile';
  const fnOf = (toolName: string): FunctionSpec => ({
    name: toolName,
    toolName,
    inputSchema: { type: 'object', properties: {} },
    resultKind: 'mcp-text',
    annotations: { readOnlyHint: true },
  });
  const specOf = (toolName: string): CapabilitySpec => ({
    module: MODULE,
    namespace: 'hostile',
    source: { kind: 'mcp', server: 'hostile' },
    config: {},
    functions: [fnOf(toolName)],
  });
  const configOf = (outDir: string) => ({ outDir, mcpServers: { hostile: { command: 'node' } } }) as unknown as ResolvedConfig;

  it('property names that would break TypeScript (comment ends, quotes, line breaks, __proto__) give valid, inert declarations', async () => {
    const outDir = await makeTempDir('attack3-inferred-names');
    const hostileKeys = [
      '*/',
      '/*',
      '"',
      "'",
      '\\',
      'a\nb',
      'line\u2028sep',
      '`${x}`',
      '__proto__',
      'constructor',
      ']',
      '*/ export declare const pwned: 1; /*',
      '}; export declare const pwned2: 1; {',
      '',
    ];
    const value = Object.fromEntries(hostileKeys.map((key, index) => [key, index % 2 === 0 ? 'text' : { nested: [index] }]));
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', value, 'run');
    recorder.record(MODULE, 'listThings', JSON.parse(`{"__proto__": {"polluted": true}, "*/": "again"}`), 'run');
    await recorder.flush();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();

    const [applied] = await applyInferredResults([specOf('listThings')], configOf(outDir));
    const schema = applied?.functions[0]?.inferredResult?.schema as { properties?: Record<string, unknown> } | undefined;
    expect(Object.keys(schema?.properties ?? {})).toEqual(expect.arrayContaining(['*/', '__proto__', 'a\nb']));
    const { dts } = emitDeclarations(applied as CapabilitySpec);
    const file = path.join(outDir, 'hostile.d.ts');
    await writeFile(file, dts);
    const consumer = path.join(outDir, 'consumer.ts');
    await writeFile(
      consumer,
      "import { listThings } from './hostile.js';\nconst result = await listThings();\nexport const a: string = result['*/'];\nexport const b: number[] | undefined = result['a\\nb']?.nested;\nexport const c: number[] | undefined = result[\"'\"]?.nested;\nexport const d: string | undefined = result['line\\u2028sep'];\n",
    );
    expect(typeCheckFiles([file, consumer])).toEqual([]);
    // Inert: the module declares what it always declares, nothing a property name smuggled in.
    const source = ts.createSourceFile(file, dts, ts.ScriptTarget.ES2022, true);
    const declared = source.statements.flatMap((statement) =>
      ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((declaration) => declaration.name.getText(source))
        : ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)
          ? [statement.name.text]
          : [],
    );
    expect(declared.filter((name) => /pwned/.test(name))).toEqual([]);
    expect(declared).toContain('listThings');
  });

  it('ever-changing, deeply nested, very wide results keep the store and the declarations bounded', async () => {
    const outDir = await makeTempDir('attack3-inferred-shapes');
    const recorder = createResultRecorder({ outDir });
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { [`k${level % 7}`]: deep };
    recorder.record(MODULE, 'shapeShifter', deep, 'run');
    for (let sample = 0; sample < 300; sample++) {
      const wide = Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [
          `key-${sample}-${index}-${'x'.repeat(100)}`,
          sample % 2 === 0 ? [{ [`inner${sample}`]: sample }] : { [`other${sample}`]: [sample] },
        ]),
      );
      recorder.record(
        MODULE,
        'shapeShifter',
        {
          wide,
          [`top${sample}`]: sample,
          list: Array.from({ length: 1_000 }, (_, index) => ({ [`field${(index * sample) % 97}`]: index })),
        },
        'run',
      );
    }
    await recorder.flush();
    const stored = await readInferredResults(outDir, MODULE);
    const text = JSON.stringify(stored);
    expect(text.length).toBeLessThan(MAX_INFERRED_FILE_BYTES);
    const [applied] = await applyInferredResults([specOf('shapeShifter')], configOf(outDir));
    const { dts } = emitDeclarations(applied as CapabilitySpec);
    expect(dts.length).toBeLessThan(512 * 1024);
  }, 60_000);

  it('a store replaced by a symlink to a file elsewhere is not written through (the link is replaced, its target untouched)', async () => {
    const outDir = await makeTempDir('attack3-inferred-link');
    const target = path.join(outDir, 'precious.txt');
    await writeFile(target, 'do not touch');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    await symlink(target, path.join(outDir, `inferred/${MODULE}.json`));
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', { a: 1 }, 'run');
    await recorder.flush();
    expect(await readFile(target, 'utf8')).toBe('do not touch');
    expect((await lstat(path.join(outDir, `inferred/${MODULE}.json`))).isSymbolicLink()).toBe(false);
    expect(Object.keys(await readInferredResults(outDir, MODULE))).toEqual(['listThings']);
  });

  it('a store over the size cap is ignored when read and started again when written', async () => {
    const outDir = await makeTempDir('attack3-inferred-huge');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    const huge = path.join(outDir, `inferred/${MODULE}.json`);
    await writeFile(huge, `{"listThings": ${' '.repeat(MAX_INFERRED_FILE_BYTES)}1}`);
    expect(await readInferredResults(outDir, MODULE)).toEqual({});
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', { a: 1 }, 'run');
    await recorder.flush();
    expect((await stat(huge)).size).toBeLessThan(4096);
  });

  // The store is read as a regular file only (checked on the opened handle) and at most its cap: a store
  // that is, or links to, a FIFO whose writer never closes it, or /dev/zero, must not make the build or
  // the recorder's writes wait forever or read gigabytes.
  it('a store that is a FIFO (with a writer that never closes it) is ignored, not waited on forever', async () => {
    const outDir = await makeTempDir('attack3-inferred-fifo');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    const fifo = path.join(outDir, 'inferred', `${MODULE}.json`);
    execFileSync('mkfifo', [fifo]);
    // Read-write on Linux opens a FIFO without waiting: the test holds the writing end open.
    const writer = await open(fifo, constants.O_RDWR);
    heldFifos.push(writer);
    await writer.write('{"listThings": ');
    expect(await readInferredResults(outDir, MODULE)).toEqual({});
    // The recorder starts such a store again instead of reading it.
    const recorder = createResultRecorder({ outDir });
    recorder.record(MODULE, 'listThings', { a: 1 }, 'run');
    await recorder.flush();
    expect(Object.keys(await readInferredResults(outDir, MODULE))).toEqual(['listThings']);
  }, 30_000);

  it('a store linked to /dev/zero is ignored without reading it', async () => {
    const outDir = await makeTempDir('attack3-inferred-zero');
    await mkdir(path.join(outDir, 'inferred'), { recursive: true });
    await symlink('/dev/zero', path.join(outDir, 'inferred', `${MODULE}.json`));
    expect(await readInferredResults(outDir, MODULE)).toEqual({});
  });
  const heldFifos: FileHandle[] = [];
  afterAll(async () => {
    // Closing the writing end ends a read that waited on it (the thread it held is freed).
    for (const handle of heldFifos) await handle.close();
  });
});
