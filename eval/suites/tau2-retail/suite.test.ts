// The retail port and the suite's check: the ground-truth calls of τ²'s 114 tasks behave as in τ² on the
// port, replaying a task's calls passes its check, and a wrong final database or answer fails it.
import { describe, expect, it } from 'vitest';
import { suiteEnvironment } from '../../suite-environment.js';
import { loadSuite } from '../../suite.js';
import { RETAIL_TOOLS, type RetailDb } from './retail-db.js';

// Loaded as `agent-spaces eval` loads it (through tsx, its `import … from 'agent-spaces'` resolved by
// Node): the suite's copy of the library is not this file's, and the data it resets is still the one
// `environment` below reads (the suite environment lives on globalThis).
const suite = await loadSuite('tau2-retail');

const environment = suiteEnvironment<RetailDb>('tau2-retail');

function playOnLiveData(calls: readonly { name: string; arguments: Record<string, unknown> }[]): void {
  for (const call of calls) {
    try {
      RETAIL_TOOLS[call.name]?.(environment.get(), call.arguments);
    } catch {
      // as the check's replay: a failing call changes nothing
    }
  }
}

describe('tau2-retail suite', () => {
  it("has τ²'s 114 tasks and 550 ground-truth calls; the calls that fail are the 18 that fail in τ²'s own Python tools", () => {
    expect(suite.tasks).toHaveLength(114);
    expect(suite.tasks.reduce((sum, task) => sum + task.calls.length, 0)).toBe(550);
    const failures = suite.tasks.flatMap((task) =>
      suite.replay(task.calls).flatMap((outcome, index) => (outcome.ok ? [] : [`${task.id}/${index}: ${outcome.error}`])),
    );
    // Measured against tau2-bench a2c0247's tools.py (pydantic models, same db.json): the same 18 calls
    // fail with the same messages, and the final databases of all 114 tasks are equal (docs/EVAL.md).
    expect(failures.sort()).toEqual(
      [
        '105/0: Insufficient gift card balance to pay for the price difference',
        '2/1: Product not found',
        '3/1: Product not found',
        '35/0: User not found',
        '37/0: User not found',
        '38/0: User not found',
        '39/0: User not found',
        '4/1: Product not found',
        '46/1: Order not found',
        '46/2: Order not found',
        '47/1: Order not found',
        '47/2: Order not found',
        '54/0: User not found',
        '55/0: User not found',
        '64/6: Non-delivered order cannot be exchanged',
        '67/0: User not found',
        '67/1: User not found',
        '68/0: User not found',
      ].sort(),
    );
  });

  it('passes a task whose ground-truth calls were made and whose answer says the expected facts', () => {
    const task = suite.tasks.find((t) => t.expectedOutputs.length > 0 && t.calls.some((c) => suite.writeCalls.has(c.name)));
    if (!task) throw new Error('no task with expected outputs and a write');
    suite.reset(task);
    playOnLiveData(task.calls);
    expect(suite.check(task, `Done. ${task.expectedOutputs.join(' and ')}.`)).toEqual({ success: true, reasons: [] });
  });

  it('fails a task whose final database misses the last write, naming the record', () => {
    const task = suite.tasks.find((t) => t.id === '0');
    if (!task) throw new Error('no task 0');
    suite.reset(task);
    playOnLiveData(task.calls.slice(0, -1));
    const result = suite.check(task, 'done');
    expect(result.success).toBe(false);
    expect(result.reasons).toEqual(['the final database differs from the ground truth\'s in 1 record: orders["#W2378156"]']);
  });

  it('fails a task whose database is right but whose answer does not say an expected fact', () => {
    const task = suite.tasks.find((t) => t.expectedOutputs.length > 0);
    if (!task) throw new Error('no task with expected outputs');
    suite.reset(task);
    playOnLiveData(task.calls);
    const result = suite.check(task, 'All done.');
    expect(result.success).toBe(false);
    expect(result.reasons[0]).toMatch(/^the final answer does not say "/);
  });

  it('fails a task when a write happened that the ground truth does not make', () => {
    const task = suite.tasks.find(
      (t) => t.calls.length > 0 && t.calls.every((c) => !suite.writeCalls.has(c.name)) && t.expectedOutputs.length === 0,
    );
    if (!task) throw new Error('no read-only task');
    suite.reset(task);
    playOnLiveData(task.calls);
    const pending = Object.values(environment.get().orders).find((order) => order.status === 'pending');
    if (!pending) throw new Error('no pending order');
    RETAIL_TOOLS.cancel_pending_order?.(environment.get(), { order_id: pending.order_id, reason: 'no longer needed' });
    expect(suite.check(task, '').success).toBe(false);
  });

  it("calculates as τ²'s calculate does, refusing anything but arithmetic", () => {
    const calculate = RETAIL_TOOLS.calculate;
    if (!calculate) throw new Error('no calculate');
    const db = {} as RetailDb;
    expect(calculate(db, { expression: '2 + 2' })).toBe('4.0');
    expect(calculate(db, { expression: '(54.04 - 41.64) * 2 / 3' })).toBe('8.27');
    expect(() => calculate(db, { expression: 'process.exit()' })).toThrow('Invalid characters in expression');
    expect(() => calculate(db, { expression: '2 +' })).toThrow('Invalid expression');
  });
});
