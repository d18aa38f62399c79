// The oracle's reading of a task's ground truth: which calls wait for which, what a direct-calling
// model sends together, where a program must stop for someone to read a result, and the programs.
import { describe, expect, it } from 'vitest';
import { loadSuite } from '../suite.js';
import { levels, planCalls, programs, selectInCode } from './plan-calls.js';
import { programFor, scriptFor, type OracleFunction } from './oracle-script.js';

// As the harness loads it: the suite imports 'agent-spaces', which Node resolves (vitest's own resolver would not).
const suite = await loadSuite('tau2-retail');

const task = (id: string) => {
  const found = suite.tasks.find((t) => t.id === id);
  if (!found) throw new Error(`no task ${id}`);
  return found;
};
const plan = (id: string) =>
  planCalls(task(id), suite.replay(task(id).calls), {
    writeCalls: suite.writeCalls,
    ...(suite.firstCalls ? { firstCalls: suite.firstCalls } : {}),
  });
const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const functions: OracleFunction[] = [
  'find_user_id_by_name_zip',
  'get_order_details',
  'get_product_details',
  'exchange_delivered_order_items',
  'find_user_id_by_email',
  'get_user_details',
].map((toolName) => ({
  toolName,
  id: `retail.${camel(toolName)}`,
  function: camel(toolName),
  namespace: 'retail',
  module: 'retail',
  directName: toolName,
}));

describe('planCalls (task 0: find the user, read the order, read two products, exchange)', () => {
  const planned = plan('0');

  it('puts the look-up first, the order next, both products together, the exchange last', () => {
    expect(levels(planned).map((level) => level.map((entry) => entry.call.name))).toEqual([
      ['find_user_id_by_name_zip'],
      ['get_order_details'],
      ['get_product_details', 'get_product_details'],
      ['exchange_delivered_order_items'],
    ]);
  });

  it("picks in code what the task names (the order's keyboard and thermostat), and marks as judgement what someone must read (the variants to choose)", () => {
    expect(planned.map((entry) => entry.judgement)).toEqual([[], [], [], [], [2, 3]]);
    expect(planned[2]?.selected).toEqual({
      product_id: { from: 1, expression: '.items.find((x) => x.name === "Mechanical Keyboard")!.product_id' },
    });
    expect(planned[3]?.selected.product_id?.expression).toBe('.items.find((x) => x.name === "Smart Thermostat")!.product_id');
  });

  it('cuts programs only where a result must be read: look-up, order and both products in one, the exchange', () => {
    expect(programs(planned).map((group) => group.map((entry) => entry.index))).toEqual([[0, 1, 2, 3], [4]]);
  });

  it('writes a program that picks the products out of the order and returns what the next step reads', () => {
    const code = programFor(programs(planned)[0] ?? [], planned, functions, task('0'));
    expect(code).toBe(
      [
        "import { retail } from '@capabilities/retail';",
        'const r0 = await retail.findUserIdByNameZip({ first_name: "Yusuf", last_name: "Rossi", zip: "19122" });',
        'const r1 = await retail.getOrderDetails({ order_id: "#W2378156" });',
        'const [r2, r3] = await Promise.all([',
        '  retail.getProductDetails({ product_id: r1.items.find((x) => x.name === "Mechanical Keyboard")!.product_id }),',
        '  retail.getProductDetails({ product_id: r1.items.find((x) => x.name === "Smart Thermostat")!.product_id }),',
        ']);',
        'export default { r1, r2, r3 };',
      ].join('\n'),
    );
  });

  it('scripts each arm: direct one turn per level, code a search then one program per group, planner call_tool for independent reads', () => {
    expect(scriptFor('direct', task('0'), planned, functions).map((turn) => turn.toolCalls?.length ?? 0)).toEqual([1, 1, 2, 1, 0]);
    expect(scriptFor('code', task('0'), planned, functions).map((turn) => turn.toolCalls?.[0]?.name ?? 'answer')).toEqual([
      'search_tools',
      'execute_code',
      'execute_code',
      'answer',
    ]);
    // Picking by field needs the result types: the search asks for whole declarations.
    expect(scriptFor('code', task('0'), planned, functions)[0]?.toolCalls?.[0]?.arguments).toMatchObject({ detail_level: 'full' });
    expect(scriptFor('planner', task('0'), planned, functions).map((turn) => turn.toolCalls?.map((call) => call.name).join('+'))).toEqual([
      'search_tools',
      'run_code',
      'call_tool',
      'finish',
    ]);
  });
});

describe('planCalls on a user id passed on and a failed look-up', () => {
  it('passes a looked-up user id into the next call of the same program, without anyone reading it', () => {
    const planned = plan('0');
    expect(planned[1]?.after).toEqual([0]);
    const withUser = suite.tasks
      .slice(0, 40)
      .map((t) => ({ t, p: plan(t.id) }))
      .find(({ p }) => p.some((entry) => entry.call.name === 'get_user_details' && Object.keys(entry.passThrough).length > 0));
    if (!withUser) throw new Error('no task passes a user id on');
    const details = withUser.p.find((entry) => entry.call.name === 'get_user_details');
    expect(details?.passThrough).toEqual({ user_id: 0 });
    expect(details?.judgement).toEqual([]);
  });

  it('does not pick in code what takes a choice: a key of a record, or one of several elements the text does not name', () => {
    const text = 'exchange the mechanical keyboard';
    const order = {
      items: [
        { name: 'Mechanical Keyboard', item_id: '11' },
        { name: 'Desk Lamp', item_id: '22' },
      ],
      payment_history: [{ payment_method_id: 'gift_card_1' }],
    };
    expect(selectInCode(order, '11', text)).toBe('.items.find((x) => x.name === "Mechanical Keyboard")!.item_id');
    expect(selectInCode(order, '22', text)).toBeUndefined();
    expect(selectInCode(order, 'gift_card_1', text)).toBe('.payment_history[0]!.payment_method_id');
    expect(selectInCode({ payment_methods: { paypal_1: { id: 'paypal_1' } } }, 'paypal_1', text)).toBeUndefined();
    const twins = {
      items: [
        { name: 'Mechanical Keyboard', item_id: '11' },
        { name: 'Mechanical Keyboard', item_id: '12' },
      ],
    };
    expect(selectInCode(twins, '12', text)).toBeUndefined();
  });

  it('makes the call after a failed look-up wait for it and read it (task 35: a wrong e-mail first)', () => {
    const planned = plan('35');
    expect(planned[0]?.outcome.ok).toBe(false);
    expect(planned[1]?.judgement).toContain(0);
    expect(programs(planned)[0]?.map((entry) => entry.index)).toEqual([0]);
  });
});
