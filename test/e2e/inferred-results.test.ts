// Typed results for MCP tools that declare no outputSchema, end to end through the bin, against a real
// stdio MCP server whose tools answer with JSON text: before anything is learned a function returns
// `Promise<string>`; `capabilities sample` learns the shape of a read-only tool, the next build declares
// it (the space's type-check then accepts `result.items[0].name` and refuses a wrong property) and runs
// get the parsed value; a result of another shape is reported as drift, not failed, and widens the
// stored type; a tool with side effects is refused by sample and never learned from.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');
const SERVER = path.join(REPO, 'test/e2e/__fixtures__/json-text-server.mjs');

function cli(args: string[], cwd: string) {
  return execa(process.execPath, [BIN, ...args], { cwd, reject: false, timeout: 120_000, stdin: 'ignore' });
}

interface StoreEntry {
  schema: Record<string, unknown>;
  samples: number;
  sources: string[];
}

async function readStore(root: string): Promise<Record<string, StoreEntry>> {
  const file = path.join(root, '.agent-spaces/inferred/mcp-shop.json');
  return existsSync(file) ? (JSON.parse(await readFile(file, 'utf8')) as Record<string, StoreEntry>) : {};
}

async function program(root: string, name: string, code: string): Promise<string> {
  const file = path.join(root, name);
  await writeFile(file, code);
  return file;
}

// Each step starts the bin (and with it the MCP server, sometimes a sandbox): generous on a busy machine.
describe('inferred result types (capabilities sample, runs, drift)', { timeout: 300_000 }, () => {
  let root: string;
  const declarations = () => readFile(path.join(root, '.agent-spaces/capabilities/mcp-shop/index.d.ts'), 'utf8');

  beforeAll(async () => {
    root = await makeTempDir('inferred');
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({ capabilities: [], mcpServers: { shop: { command: process.execPath, args: [SERVER] } } }),
    );
    const build = await cli(['capabilities', 'build'], root);
    expect(build.exitCode, build.stderr).toBe(0);
  }, 300_000);

  it('declares text before anything is learned, and the type-check says so', async () => {
    expect(await declarations()).toContain('export type ListProductsResult = string;');
    const file = await program(
      root,
      'before.ts',
      "import { listProducts } from '@capabilities/mcp-shop';\nconst result = await listProducts({});\nexport default result.items;\n",
    );
    const run = await cli(['run', file], root);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/TS2339: Property 'items' does not exist on type 'string'/);
  });

  it('refuses to sample a tool with side effects or one not known to be read-only, and records nothing', async () => {
    const destructive = await cli(['capabilities', 'sample', 'mcp-shop.deleteProduct', '--args', '{"name":"saw"}'], root);
    expect(destructive.exitCode).toBe(1);
    expect(destructive.stderr).toContain('mcp-shop.deleteProduct is marked as having side effects (mcpServers.shop.sideEffects');
    const unknown = await cli(['capabilities', 'sample', 'mcp-shop.getStatus'], root);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('is not known to be read-only');
    expect(unknown.stderr).toContain('mcpServers.shop.sideEffects');
    const misspelt = await cli(['capabilities', 'sample', 'mcp-shop.listProduct'], root);
    expect(misspelt.exitCode).toBe(2);
    expect(misspelt.stderr).toContain('did you mean "mcp-shop.listProducts"');
    expect(await readStore(root)).toEqual({});
  });

  it('samples a read-only tool, and the next build declares the learned type', async () => {
    const sample = await cli(['capabilities', 'sample', 'mcp-shop.listProducts', '--args', '{"category":"tools"}'], root);
    expect(sample.exitCode, sample.stderr).toBe(0);
    expect(sample.stdout).toContain(
      'mcp-shop.listProducts: result type learned from 1 result: listProducts(params?: { category?: string; shape?: "usual" | "drifted" | "prose" }): Promise<{ category: string; items: { … }[]; total: number }>',
    );
    const store = await readStore(root);
    expect(store.list_products).toMatchObject({ samples: 1, sources: ['sample'] });
    expect(JSON.stringify(store)).not.toContain('hammer'); // shapes only, never values

    const build = await cli(['capabilities', 'build'], root);
    expect(build.exitCode, build.stderr).toBe(0);
    expect(build.stderr).toContain('1 function typed from inferred results (observed, not declared by the server): mcp-shop.listProducts');
    const dts = await declarations();
    expect(dts).toContain(
      '@remarks Result type inferred from 1 observed result (agent-spaces capabilities sample; no outputSchema declared); may be incomplete.',
    );
    expect(dts).toMatch(
      /export interface ListProductsResult \{\n {2}category: string;\n {2}items: \{\n {4}name: string;\n {4}price: number;\n {4}stock: number;\n {2}\}\[\];\n {2}total: number;\n\}/,
    );
    expect(dts).toContain('export type GetStatusResult = string;');
  });

  // (The space's type-check has noUncheckedIndexedAccess, hence `items[0]?.`.)
  it('runs get the parsed value, typed: a right property type-checks, a wrong one does not', async () => {
    const right = await program(
      root,
      'right.ts',
      "import { listProducts } from '@capabilities/mcp-shop';\nconst result = await listProducts({});\nexport default { first: result.items[0]?.name, total: result.total };\n",
    );
    const run = await cli(['run', right, '--json'], root);
    expect(run.exitCode, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { result: unknown }).result).toEqual({ first: 'hammer', total: 2 });

    const wrong = await program(
      root,
      'wrong.ts',
      "import { listProducts } from '@capabilities/mcp-shop';\nconst result = await listProducts({});\nexport default result.items[0]?.nam;\n",
    );
    const refused = await cli(['run', wrong], root);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/TS2551: Property 'nam' does not exist on type .*Did you mean 'name'\?/);
  });

  it('reports drift without failing the call, returns the value, and widens the stored type', async () => {
    const file = await program(
      root,
      'drift.ts',
      "import { listProducts } from '@capabilities/mcp-shop';\nconst drifted = await listProducts({ shape: 'drifted' });\nconst prose = await listProducts({ shape: 'prose' });\nexport default { drifted, prose };\n",
    );
    const run = await cli(['run', file, '--json'], root);
    expect(run.exitCode, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { result: unknown }).result).toEqual({
      drifted: { items: [{ name: 'saw', price: 12, stock: 0, discontinued: true }], total: 'unknown' },
      prose: 'The catalogue is being rebuilt; try again later.',
    });
    expect(run.stderr).toContain('[drift] mcp-shop.listProducts returned a result unlike its inferred type (result.');
    expect(run.stderr).toContain('its stored type was widened');
    expect(run.stderr).toContain('result is not JSON text any more); the call succeeded with the text; its stored type was not changed');

    const store = await readStore(root);
    expect(store.list_products?.sources).toEqual(['run', 'sample']);
    // The sample, right.ts's call and the drifted result; the wrong program never ran, prose teaches nothing.
    expect(store.list_products?.samples).toBe(3);
    const build = await cli(['capabilities', 'build'], root);
    expect(build.exitCode, build.stderr).toBe(0);
    const dts = await declarations();
    expect(dts).toContain('discontinued?: boolean;');
    expect(dts).toContain('total: number | string;');
    expect(dts).toContain(
      '@remarks Result type inferred from 3 observed results (calls and agent-spaces capabilities sample; no outputSchema declared); may be incomplete.',
    );
  });

  it('learns from runs of tools not marked as having side effects, never from destructive ones', async () => {
    const file = await program(
      root,
      'effects.ts',
      "import { deleteProduct, getStatus } from '@capabilities/mcp-shop';\nexport default { deleted: await deleteProduct({ name: 'saw' }), status: await getStatus() };\n",
    );
    const run = await cli(['run', file, '--json'], root);
    expect(run.exitCode, run.stderr).toBe(0);
    const store = await readStore(root);
    expect(store.delete_product).toBeUndefined();
    expect(store.get_status).toMatchObject({ samples: 1, sources: ['run'], schema: { type: 'object', required: ['ok', 'uptimeSeconds'] } });
  });
});
