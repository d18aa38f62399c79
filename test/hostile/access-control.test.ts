/**
 * A run narrowed to some functions (the planner's and an agent's `tools.allow`) cannot reach the others,
 * however the program makes the call: static or renamed imports, the namespace, a computed member, the
 * host global directly. The bridge decides; no source text is read. Errors
 * never list what the run may not see.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { accessFromIds, type CallAccess } from '../../core/protocol.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeExampleSpace } from '../support/example-space.js';
import { toolCallErrorOf } from '../support/tool-call-error-of.js';

let space: Space;
const created: string[] = [];
const access: CallAccess = accessFromIds(['crm.searchCustomers', 'crm.listTickets', 'train-schedule.getSchedule'], 'this task');

beforeAll(async () => {
  const made = await makeExampleSpace('access');
  Object.assign(process.env, made.env);
  space = await createSpace({
    cwd: made.root,
    // Everything is approved: only access control stands between the program and createTicket.
    approvalHandler: async (request) => {
      created.push(request.function);
      return { approved: true };
    },
  });
  expect((await space.build()).errors).toEqual([]);
}, 120_000);
afterAll(async () => {
  await space.close();
});
afterEach(async () => {
  const healthy = await space.run(
    "import { crm } from '@capabilities/crm';\nreturn (await crm.searchCustomers({ query: 'Acme' })).length;",
    { access },
  );
  expect(healthy).toMatchObject({ success: true, result: 2 });
});

const denied = {
  success: false,
  error: { code: 'ACCESS_DENIED', message: expect.stringMatching(/crm\.createTicket is not available to this task/) },
};
const ticket = "{ customerId: 'c-001', subject: 'x', priority: 'low' }";

describe('a narrowed run', () => {
  it('is refused the hidden function however the program calls it', async () => {
    const programs = [
      `import { createTicket } from '@capabilities/crm';\nreturn await createTicket(${ticket});`,
      `import { createTicket as harmless } from '@capabilities/crm';\nreturn await harmless(${ticket});`,
      `import * as everything from '@capabilities/crm';\nreturn await (everything as any)['create' + 'Ticket'](${ticket});`,
      `import { crm } from '@capabilities/crm';\nconst alias: any = crm;\nreturn await alias[['create', 'Ticket'].join('')](${ticket});`,
      `return await (globalThis as any).__agentSpaces.call('crm', 'createTicket', ${ticket});`,
      `return await (globalThis as any)['__agent' + 'Spaces'].call('crm', 'createTicket', ${ticket}, 'full');`,
    ];
    for (const code of programs) expect(await space.run(code, { access }), code).toMatchObject(denied);
    expect(created).toEqual([]);
  });
  it('sees a module it was given nothing of as absent', async () => {
    const result = await space.run(
      "return await (globalThis as any).__agentSpaces.call('std-fs', 'writeFile', { path: 'x.txt', content: 'x' });",
      { access },
    );
    expect(result).toMatchObject({ success: false, error: { code: 'UNKNOWN_CAPABILITY' } });
  });
  it('names none of the hidden modules or functions in its errors', async () => {
    const unknownFunction = await space.run("return await (globalThis as any).__agentSpaces.call('crm', 'nope', {});", {
      access,
      check: false,
    });
    expect(unknownFunction.error?.message).toMatch(/searchCustomers/);
    expect(unknownFunction.error?.message).not.toMatch(/createTicket/);
    const unknownModule = await space.run("return await (globalThis as any).__agentSpaces.call('notes', 'add', {});", {
      access,
      check: false,
    });
    expect(unknownModule.error).toMatchObject({ code: 'UNKNOWN_CAPABILITY' });
    expect(unknownModule.error?.message).toMatch(/available modules are crm, train-schedule$/);
  });
  it('suggests, for a mistyped import, only a module it may see: at the type-check and at run time', async () => {
    for (const check of [true, false]) {
      const near = await space.run("import { crm } from '@capabilities/crn';\nreturn crm;", { access, check });
      expect(near.success, `check: ${check}`).toBe(false);
      expect([near.error?.message, ...(near.error?.diagnostics ?? []).map((diagnostic) => diagnostic.message)].join('\n')).toMatch(
        /[Dd]id you mean ["']@capabilities\/crm["']\?/,
      );
      // notes is in the build, one letter from the import, and hidden from this run: never named.
      const hidden = await space.run("import { notes } from '@capabilities/note';\nreturn notes;", { access, check });
      expect(hidden.success).toBe(false);
      expect(JSON.stringify(hidden.error)).not.toMatch(/did you mean|@capabilities\/notes/i);
    }
    // The same typo in a run that may see everything gets the hint.
    const open = await space.run("import { notes } from '@capabilities/note';\nreturn notes;", { check: false });
    expect(open.error?.message).toContain('(did you mean "@capabilities/notes"?)');
  });

  it('is refused on direct calls (callTool) as well', async () => {
    const error = await toolCallErrorOf(
      space.callTool('crm.createTicket', { customerId: 'c-001', subject: 'x', priority: 'low' }, { access }),
    );
    expect(error).toMatchObject({ code: 'ACCESS_DENIED' });
    expect(created).toEqual([]);
  });
  it('leaves a run without access narrowing unchanged', async () => {
    const result = await space.run(`import { createTicket } from '@capabilities/crm';\nreturn (await createTicket(${ticket})).customerId;`);
    expect(result).toMatchObject({ success: true, result: 'c-001' });
    expect(created).toEqual(['createTicket']);
  });
});

describe('a narrowed run, by other routes (a space of its own)', () => {
  let space: Space;
  const access: CallAccess = accessFromIds(['crm.searchCustomers', 'crm.listTickets'], 'this task');
  beforeAll(async () => {
    const made = await makeExampleSpace('attack-pass');
    Object.assign(process.env, made.env);
    space = await createSpace({ cwd: made.root, approvalHandler: async () => ({ approved: true }) });
    expect((await space.build()).errors).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await space.close();
  });

  it('a hidden function stays refused when called by its tool name or with resultMode full', async () => {
    const specs = await space.capabilities();
    const createTicket = specs.find((spec) => spec.module === 'crm')?.functions.find((fn) => fn.name === 'createTicket');
    expect(createTicket).toBeDefined();
    for (const name of new Set([createTicket?.name, createTicket?.toolName])) {
      for (const mode of ['value', 'full']) {
        const result = await space.run(
          `return await (globalThis as any).__agentSpaces.call('crm', ${JSON.stringify(name)}, { customerId: 'c-001', subject: 'x', priority: 'low' }, '${mode}');`,
          { access, check: false },
        );
        expect(result, `${name} ${mode}`).toMatchObject({ success: false, error: { code: 'ACCESS_DENIED' } });
      }
    }
  });
  // The bridge lists only the modules a run may see (UNKNOWN_CAPABILITY); the module loader's
  // MODULE_NOT_FOUND must not list the hidden ones either.
  it('an unknown import does not list the modules hidden from the run', async () => {
    const result = await space.run("import x from '@capabilities/zzz';\nexport default x;", { access, check: false });
    expect(result).toMatchObject({ success: false, error: { code: 'MODULE_NOT_FOUND' } });
    expect(result.error?.message).not.toMatch(/notes|std-fs|train-schedule|get-weather|mcp-stations/);
  });
  // space.run type-checks against the declarations of the whole build, so TypeScript's "Did you mean …?"
  // could name a function the run may not call: a narrowed run's diagnostics drop such suggestions and
  // keep the others.
  it('the type-check of a narrowed run does not suggest hidden functions', async () => {
    const result = await space.run("import { createTicke } from '@capabilities/crm';\nreturn createTicke;", { access });
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error)).not.toContain('createTicket');
    // A visible function is still suggested.
    const visible = await space.run("import { listTicket } from '@capabilities/crm';\nreturn listTicket;", { access });
    expect(visible.error?.message).toContain("Did you mean 'listTickets'?");
  }, 120_000);
});
