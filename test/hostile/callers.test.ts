/**
 * Per-function callers (`callers: 'code' | 'direct' | 'both'`): the bridge refuses a call made by a caller
 * the function does not allow, however the program reached it — a static or renamed import, a dynamic
 * import, an aliased namespace, a reference saved before an await, Promise.all, the host global itself —
 * and a direct call (space.callTool: the planner's direct step, serve's call_tool, the studio's tester)
 * of a code-only function. The refused handler never runs; a healthy call works after each test.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { executeTask } from '../../planner/index.js';
import { searchTools } from '../../space/search-tools.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { toolCallErrorOf } from '../support/tool-call-error-of.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const DEFINE_TOOL = pathToFileURL(path.join(REPO, 'core/define-tool.ts')).href;

let space: Space;
let root: string;
let transfers: string;

const LEDGER = (log: string) => `import { appendFileSync } from 'node:fs';
import { defineFunction, defineTool } from '${DEFINE_TOOL}';
export const ledger = defineTool({
  name: 'ledger',
  functions: {
    readBalance: defineFunction({
      description: 'The balance of an account.',
      callers: 'code',
      parameters: { type: 'object', properties: { account: { type: 'string' } }, required: ['account'] },
      returns: { type: 'object', properties: { account: { type: 'string' }, balance: { type: 'number' } }, required: ['account', 'balance'] },
      handler: ({ account }) => ({ account, balance: 100 }),
    }),
    transfer: defineFunction({
      description: 'Moves money.',
      callers: 'direct',
      parameters: { type: 'object', properties: { to: { type: 'string' }, amount: { type: 'number' } }, required: ['to', 'amount'] },
      handler: ({ to, amount }) => {
        appendFileSync(${JSON.stringify(log)}, to + ' ' + amount + '\\n');
        return { ok: true };
      },
    }),
    ping: defineFunction({ handler: () => 'pong' }),
  },
});
`;

beforeAll(async () => {
  root = await makeTempDir('callers');
  transfers = path.join(root, 'transfers.log');
  await mkdir(path.join(root, 'capabilities'), { recursive: true });
  await writeFile(path.join(root, 'capabilities/ledger.ts'), LEDGER(transfers));
  await writeFile(
    path.join(root, 'capabilities/audit.json'),
    JSON.stringify({
      name: 'audit',
      implementation: './audit-impl.mjs',
      config: { callers: 'direct' },
      functions: [
        { name: 'record', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
        { name: 'count', callers: 'both' },
      ],
    }),
  );
  await writeFile(
    path.join(root, 'capabilities/audit-impl.mjs'),
    "export const record = () => 'recorded';\nexport const count = () => 7;\n",
  );
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify({ capabilities: ['capabilities/*.ts', 'capabilities/*.json'], std: { fs: { root: 'workspace' } } }),
  );
  space = await createSpace({ cwd: root, approvalHandler: async () => ({ approved: true }) });
  expect((await space.build()).errors).toEqual([]);
}, 120_000);
afterAll(async () => {
  await space.close();
});
afterEach(async () => {
  const healthy = await space.run(
    "import { readBalance, ping } from '@capabilities/ledger';\nimport { count } from '@capabilities/audit';\nreturn [(await readBalance({ account: 'a' })).balance, await ping(), await count()];",
    // The type-check is not under test here (and a loaded machine may make it slow).
    { check: false },
  );
  expect(healthy, JSON.stringify(healthy.error)).toMatchObject({ success: true, result: [100, 'pong', 7] });
  expect(await space.callTool('ledger.ping', {})).toBe('pong');
  // Nothing refused ever ran.
  expect(existsSync(transfers) ? await readFile(transfers, 'utf8') : '').toBe(directTransfers);
});

let directTransfers = '';
const refusedFromCode = (id: string) => ({
  success: false,
  error: { code: 'CALLER_NOT_ALLOWED', message: expect.stringContaining(`${id} may not be called from code (callers: 'direct')`) },
});
const transferArgs = "{ to: 'mallory', amount: 1000 }";

describe('a direct-only function', () => {
  it('is refused to a program, by every route it can take', async () => {
    const programs = [
      `import { transfer } from '@capabilities/ledger';\nreturn await transfer(${transferArgs});`,
      `import { transfer as harmless } from '@capabilities/ledger';\nreturn await harmless(${transferArgs});`,
      `import * as everything from '@capabilities/ledger';\nconst alias: any = everything;\nreturn await alias[['trans', 'fer'].join('')](${transferArgs});`,
      `import { ledger } from '@capabilities/ledger';\nconst alias: any = ledger;\nconst call = alias.transfer.bind(null);\nreturn await call(${transferArgs});`,
      `import { transfer, readBalance } from '@capabilities/ledger';\nconst saved = transfer;\nawait readBalance({ account: 'a' });\nawait new Promise((resolve) => setTimeout(resolve, 1));\nreturn await saved(${transferArgs});`,
      `import { transfer, readBalance } from '@capabilities/ledger';\nreturn await Promise.all([readBalance({ account: 'a' }), transfer(${transferArgs}), transfer({ to: 'eve', amount: 1 })]);`,
      `return await (globalThis as any).__agentSpaces.call('ledger', 'transfer', ${transferArgs});`,
      `return await (globalThis as any)['__agent' + 'Spaces'].call('ledger', 'transfer', ${transferArgs}, 'full');`,
    ];
    for (const code of programs) expect(await space.run(code, { check: false }), code).toMatchObject(refusedFromCode('ledger.transfer'));
  });

  it('is not reached by a dynamic import either (the runtime refuses it, or the bridge does)', async () => {
    const programs = [
      `const module: any = await import('@capabilities/ledger');\nreturn await module.transfer(${transferArgs});`,
      `const name = '@capabilities/' + 'ledger';\nconst module: any = await import(name);\nreturn await module.ledger['trans' + 'fer'](${transferArgs});`,
      `const load = (0, eval)('(s) => import(s)');\nconst module: any = await load('@capabilities/ledger');\nreturn await module.transfer(${transferArgs});`,
    ];
    for (const code of programs) {
      const result = await space.run(code, { check: false });
      expect(result.success, code).toBe(false);
      expect(['PROGRAM_REFUSED', 'CALLER_NOT_ALLOWED', 'RUNTIME_ERROR'], JSON.stringify(result.error)).toContain(result.error?.code);
    }
  });

  it('is refused when only its capability says so (a JSON tool config), and a function may widen it', async () => {
    const refused = await space.run("import { record } from '@capabilities/audit';\nreturn await record({ text: 'x' });", { check: false });
    expect(refused).toMatchObject(refusedFromCode('audit.record'));
    expect(await space.callTool('audit.record', { text: 'x' })).toBe('recorded');
    expect(await space.callTool('audit.count', {})).toBe(7);
  });

  it('still runs as a direct call', async () => {
    expect(await space.callTool('ledger.transfer', { to: 'bob', amount: 5 })).toEqual({ ok: true });
    directTransfers = 'bob 5\n';
  });

  it('the Promise.all siblings of a refused call still complete', async () => {
    const result = await space.run(
      "import { transfer, readBalance } from '@capabilities/ledger';\nconst settled = await Promise.allSettled([readBalance({ account: 'a' }), transfer({ to: 'x', amount: 1 })]);\nreturn settled.map((entry) => entry.status === 'fulfilled' ? entry.value : (entry.reason as any).code);",
      { check: false },
    );
    expect(result).toMatchObject({ success: true, result: [{ account: 'a', balance: 100 }, 'CALLER_NOT_ALLOWED'] });
  });
});

describe('a code-only function', () => {
  it('is refused as a direct call, with its own error code and a clear message', async () => {
    const error = await toolCallErrorOf(space.callTool('ledger.readBalance', { account: 'a' }));
    expect(error.code).toBe('CALLER_NOT_ALLOWED');
    expect(error.message).toBe(
      "ledger.readBalance may not be called directly (callers: 'code'): call it from a program run in the sandbox (execute_code / run code)",
    );
    // By its tool name too.
    expect((await toolCallErrorOf(space.callTool('ledger.readBalance', { account: 'b' }, { resultMode: 'full' }))).code).toBe(
      'CALLER_NOT_ALLOWED',
    );
  });
});

describe('what the model is told', () => {
  it('the declarations say who may call in TSDoc, and search results mark it', async () => {
    const dts = await readFile(path.join(space.config.outDir, 'capabilities/ledger/index.d.ts'), 'utf8');
    expect(dts).toMatch(/Moves money\.\n \* @callers direct — not callable from code[^\n]*\n \*\/\nexport declare function transfer/);
    expect(dts).toMatch(/@callers code — callable only from code[^\n]*\n \*\/\nexport declare function readBalance/);
    expect(dts).not.toMatch(/@callers[^\n]*\n[^\n]*\n?export declare function ping/);
    const found = searchTools(await space.catalog(), 'ledger', { detailLevel: 'summary' });
    const byId = Object.fromEntries(found.matches.map((match) => [match.id, match.callers]));
    expect(byId).toEqual({ 'ledger.ping': undefined, 'ledger.readBalance': 'code', 'ledger.transfer': 'direct' });
  });
});

describe('the planner', () => {
  it("gets a code-only function's refusal for its direct step, and may call it from code in the next", async () => {
    const step = (id: string, name: string, args: unknown) => ({
      message: { content: null, tool_calls: [{ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } }] },
      usage: null,
    });
    const result = await executeTask('balance of a', {
      space,
      replay: [
        step('c1', 'call_tool', { name: 'ledger.readBalance', arguments: { account: 'a' } }),
        step('c2', 'run_code', {
          code: "import { readBalance } from '@capabilities/ledger';\nexport default (await readBalance({ account: 'a' })).balance;",
        }),
        step('c3', 'finish', { summary: 'read it' }),
      ],
      model: { model: 'replay' },
      trace: false,
      runDir: await makeTempDir('callers-planner'),
    });
    expect(result.success).toBe(true);
    expect(result.rawOutputs.map((output) => [output.kind, output.ok])).toEqual([
      ['tool-call', false],
      ['code-run', true],
    ]);
    expect(String((result.rawOutputs[0] as { error?: unknown }).error)).toContain(
      "ledger.readBalance may not be called directly (callers: 'code')",
    );
    expect((result.rawOutputs[1] as { value?: unknown }).value).toBe(100);
  });
});
