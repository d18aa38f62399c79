// Approval rounds of 2026-07-28 clients, driven directly: a run that asks for approvals the way the
// bridge does, sealed states opened, refused and expired.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, RunResult } from '../core/index.js';
import { ApprovalRounds } from './approval-rounds.js';
import { createSealer } from './sealed-state.js';

const approve = () => ({ approved: true, reason: 'approved by the user' });

function request(runId: string, callId: string): ApprovalRequest {
  return {
    runId,
    callId,
    capability: 'crm',
    function: 'createTicket',
    params: { subject: callId },
    message: `create ${callId}?`,
    timestamp: new Date().toISOString(),
  };
}

/** A run that asks for approval of `calls` in parallel and reports each decision in its result. */
function runAsking(rounds: ApprovalRounds, runId: string, calls: string[]): (signal: AbortSignal) => Promise<RunResult> {
  return async (signal) => {
    const decisions = await Promise.all(calls.map((callId) => rounds.approve(request(runId, callId))));
    return {
      success: !signal.aborted,
      result: decisions.map((decision) => decision.approved),
      logs: [],
      timedOut: false,
      calls: calls.length,
      durationMs: 1,
    };
  };
}

describe('ApprovalRounds', () => {
  it('lists the waiting calls, resumes the same run with the answers, and opens each state once', async () => {
    const rounds = new ApprovalRounds(createSealer());
    expect(rounds.start('run-1', runAsking(rounds, 'run-1', ['a', 'b']))).toBeUndefined();
    const first = await rounds.next('run-1', new AbortController().signal);
    if (first.kind !== 'input') throw new Error('expected input');
    expect(first.waiting.map((entry) => entry.callId).sort()).toEqual(['a', 'b']);
    expect(rounds.resume(first.requestState, (callId) => (callId === 'a' ? approve() : { approved: false, reason: 'no' }))).toEqual({
      runId: 'run-1',
    });
    expect(rounds.resume(first.requestState, approve)).toEqual({ refused: expect.stringMatching(/already used/) });
    const done = await rounds.next('run-1', new AbortController().signal);
    expect(done).toMatchObject({ kind: 'done', result: { success: true, result: [true, false] } });
  });

  it('refuses a state sealed with another key or for another run of this key', async () => {
    const rounds = new ApprovalRounds(createSealer('k'.repeat(32)));
    rounds.start('run-2', runAsking(rounds, 'run-2', ['a']));
    const round = await rounds.next('run-2', new AbortController().signal);
    if (round.kind !== 'input') throw new Error('expected input');
    const other = new ApprovalRounds(createSealer('o'.repeat(32)));
    expect(other.resume(round.requestState, approve)).toEqual({ refused: expect.stringMatching(/not sealed by this server/) });
    // Same key (a replica): the state opens, but the run waits in the other process.
    const replica = new ApprovalRounds(createSealer('k'.repeat(32)));
    expect(replica.resume(round.requestState, approve)).toEqual({ refused: expect.stringMatching(/another server process/) });
    rounds.close();
  });

  it('denies the waiting calls and cancels the run when nobody comes back before the state expires', async () => {
    const rounds = new ApprovalRounds(createSealer(), { waitMs: 20 });
    let finished!: (result: RunResult) => void;
    const result = new Promise<RunResult>((resolve) => (finished = resolve));
    rounds.start('run-3', (signal) => runAsking(rounds, 'run-3', ['a'])(signal).then((value) => (finished(value), value)));
    const round = await rounds.next('run-3', new AbortController().signal);
    if (round.kind !== 'input') throw new Error('expected input');
    // The run ends by itself once the expiry denied its call; no retry is made.
    expect(await result).toMatchObject({ success: false, result: [false] });
    expect(rounds.resume(round.requestState, approve)).toEqual({ refused: expect.stringMatching(/expired|not waiting/) });
  });

  it('cancels the run when the request attached to it is cancelled', async () => {
    const rounds = new ApprovalRounds(createSealer());
    let aborted!: () => void;
    const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
    rounds.start(
      'run-4',
      (signal) =>
        new Promise<RunResult>((_resolve, reject) => signal.addEventListener('abort', () => (aborted(), reject(new Error('cancelled'))))),
    );
    const controller = new AbortController();
    const round = rounds.next('run-4', controller.signal);
    controller.abort();
    await sawAbort;
    await expect(round).rejects.toThrow('cancelled');
  });

  it('refuses to start more runs than its cap', () => {
    const rounds = new ApprovalRounds(createSealer(), { maxRuns: 1 });
    expect(rounds.start('a', () => new Promise(() => undefined))).toBeUndefined();
    expect(rounds.start('b', () => new Promise(() => undefined))).toMatch(/too many runs/);
    rounds.close();
  });
});

describe('createSealer', () => {
  it('opens only what it sealed, for the same purpose, and refuses a short key', () => {
    const sealer = createSealer();
    const sealed = sealer.seal('a', { run: 'x' });
    expect(sealer.open('a', sealed)).toEqual({ run: 'x' });
    expect(sealer.open('b', sealed)).toBeUndefined();
    expect(sealer.open('a', `${sealed.slice(0, -2)}AA`)).toBeUndefined();
    expect(createSealer().open('a', sealed)).toBeUndefined();
    expect(() => createSealer('short')).toThrow(/at least 32 characters/);
  });
});
