import { describe, expect, it } from 'vitest';
import { emptyUsage, resolveBudget } from './budget.js';
import type { ModelReply } from './model-client.js';
import type { CallOutcome } from './perform-tool-call.js';
import { callBreachedBudget, costExceeds, finishCalled, firstStop, isCancelled, stepCountIs, type StopState } from './stop-conditions.js';
import type { TaskStep } from './task-step.js';

const reply: ModelReply = { message: { role: 'assistant', content: null, refusal: null }, usage: undefined } as ModelReply;

function step(number: number, outcomes: CallOutcome[] = []): TaskStep {
  return { number, reply, costUsd: 0, calls: outcomes.map((outcome, index) => ({ id: `call_${number}_${index}`, outcome })) };
}

function state(steps: TaskStep[], llmCostUsd = 0): StopState {
  return { steps, usage: { ...emptyUsage(resolveBudget()), steps: steps.length, llmCostUsd } };
}

const answered: CallOutcome = { content: '{"ok":true}', digest: 'step 1: search_tools' };

describe('stop conditions', () => {
  it('stepCountIs stops once that many steps were made, naming maxSteps', () => {
    expect(stepCountIs(2)(state([step(1)]))).toBeUndefined();
    expect(stepCountIs(2)(state([step(1), step(2)]))).toEqual({ kind: 'budget', limit: 'maxSteps' });
    expect(stepCountIs(0)(state([]))).toEqual({ kind: 'budget', limit: 'maxSteps' });
  });

  it('costExceeds stops only past the limit, not at it', () => {
    expect(costExceeds(0.5)(state([step(1)], 0.5))).toBeUndefined();
    expect(costExceeds(0.5)(state([step(1)], 0.5001))).toEqual({ kind: 'budget', limit: 'maxLlmCostUsd' });
  });

  it('isCancelled answers with the signal reason once aborted', () => {
    const controller = new AbortController();
    const condition = isCancelled(controller.signal);
    expect(condition(state([]))).toBeUndefined();
    controller.abort(new Error('the user pressed stop'));
    expect(condition(state([]))).toEqual({ kind: 'cancelled', reason: 'the user pressed stop' });
    expect(isCancelled(undefined)(state([]))).toBeUndefined();
  });

  it('finishCalled looks at the last call of the step in progress, and keeps a missing result missing', () => {
    expect(finishCalled(state([step(1, [answered])]))).toBeUndefined();
    expect(
      finishCalled(state([step(1, [answered, { content: '', digest: 'finish', finish: { summary: 'done', result: { n: 2 } } }])])),
    ).toEqual({ kind: 'finished', summary: 'done', result: { n: 2 } });
    const stop = finishCalled(state([step(1, [{ content: '', digest: 'finish', finish: { summary: 'done' } }])]));
    expect(stop).toEqual({ kind: 'finished', summary: 'done' });
    expect(stop && 'result' in stop).toBe(false);
    // A finish in an earlier step is history, not the reason to stop now.
    expect(finishCalled(state([step(1, [{ content: '', digest: 'finish', finish: { summary: 'old' } }]), step(2)]))).toBeUndefined();
  });

  it('callBreachedBudget names the limit the last call ran into', () => {
    expect(callBreachedBudget(state([step(1, [answered])]))).toBeUndefined();
    expect(callBreachedBudget(state([step(1, [answered, { content: '', digest: '', breach: 'maxCodeRuns' }])]))).toEqual({
      kind: 'budget',
      limit: 'maxCodeRuns',
    });
  });

  it('firstStop answers with the first condition that stops, in the order given', () => {
    const controller = new AbortController();
    controller.abort('stop');
    const over = state([step(1), step(2)], 1);
    expect(firstStop([isCancelled(controller.signal), stepCountIs(2), costExceeds(0.5)], over)).toEqual({
      kind: 'cancelled',
      reason: 'stop',
    });
    expect(firstStop([stepCountIs(2), costExceeds(0.5)], over)).toEqual({ kind: 'budget', limit: 'maxSteps' });
    expect(firstStop([costExceeds(0.5), stepCountIs(2)], over)).toEqual({ kind: 'budget', limit: 'maxLlmCostUsd' });
    expect(firstStop([stepCountIs(3), costExceeds(2)], over)).toBeUndefined();
  });
});
