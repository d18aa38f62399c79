import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { knownLogLevel, RunLedger } from './run-ledger.js';
import { DEFAULT_RUN_LIMITS, type RunLimits } from './sandbox.js';
import { MAX_NAME } from './worker-protocol.js';

const limits = (overrides: Partial<RunLimits> = {}): RunLimits => ({ ...DEFAULT_RUN_LIMITS, ...overrides });
const toolError = (code: string): string => JSON.stringify({ code: -32000, message: 'no', data: { code } });

describe('run ledger: clock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('calls onDeadline once, at the time limit plus the margin', () => {
    const onDeadline = vi.fn();
    const ledger = new RunLedger(limits({ timeoutMs: 1_000 }), { onDeadline, deadlineMarginMs: 50 });
    vi.advanceTimersByTime(1_049);
    expect(onDeadline).not.toHaveBeenCalled();
    expect(ledger.wallTimeLeft()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(onDeadline).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(onDeadline).toHaveBeenCalledTimes(1);
  });

  it('stops the deadline while held (holds nest) and moves it by the time held', () => {
    const onDeadline = vi.fn();
    const onHoldChange = vi.fn();
    const ledger = new RunLedger(limits({ timeoutMs: 1_000 }), { onDeadline, onHoldChange });
    vi.advanceTimersByTime(400);
    const releaseFirst = ledger.hold();
    const releaseSecond = ledger.hold();
    expect(ledger.held).toBe(true);
    expect(onHoldChange.mock.calls).toEqual([[true]]);
    vi.advanceTimersByTime(5_000);
    expect(onDeadline).not.toHaveBeenCalled();
    expect(ledger.wallTimeLeft()).toBe(600);
    releaseFirst();
    releaseFirst(); // a release counts once
    expect(ledger.held).toBe(true);
    releaseSecond();
    expect(ledger.held).toBe(false);
    expect(onHoldChange.mock.calls).toEqual([[true], [false]]);
    vi.advanceTimersByTime(599);
    expect(onDeadline).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onDeadline).toHaveBeenCalledTimes(1);
    expect(ledger.elapsedMs()).toBe(6_000);
  });

  it("counts the engine's CPU time against the same limit, held or not, and says which clock ran out", () => {
    let cpuMs = 0;
    const ledger = new RunLedger(limits({ timeoutMs: 1_000 }), { onDeadline: () => undefined, cpuUsedMs: () => cpuMs });
    vi.advanceTimersByTime(100);
    expect(ledger.timeLeft()).toBe(900);
    cpuMs = 300;
    expect(ledger.wallTimeLeft()).toBe(900);
    expect(ledger.timeLeft()).toBe(700);
    expect(ledger.timeoutError().message).toMatch(/^the program ran longer than its limit of 1000 ms/);
    const release = ledger.hold();
    vi.advanceTimersByTime(5_000);
    cpuMs = 950;
    expect(ledger.timeLeft()).toBe(50);
    // Held, only CPU time can have run out.
    expect(ledger.timeoutError()).toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(/computed for longer than its limit of 1000 ms of CPU time/),
    });
    release();
    cpuMs = 1_000;
    expect(ledger.timeoutError().message).toContain('ms of CPU time');
    ledger.close();
  });

  it('without an engine CPU count, time left is the wall clock (the host side of a pipe)', () => {
    const ledger = new RunLedger(limits({ timeoutMs: 1_000 }), { onDeadline: () => undefined, deadlineMarginMs: 50 });
    vi.advanceTimersByTime(200);
    expect(ledger.cpuUsedMs()).toBe(0);
    expect(ledger.timeLeft()).toBe(850);
    expect(ledger.timeoutError().message).toMatch(/^the program ran longer than its limit of 1000 ms/);
    ledger.close();
  });

  it('stops for good once closed: no deadline, holds do nothing', () => {
    const onDeadline = vi.fn();
    const ledger = new RunLedger(limits({ timeoutMs: 1_000 }), { onDeadline });
    const release = ledger.hold();
    ledger.close();
    release();
    expect(ledger.hold()()).toBeUndefined();
    vi.advanceTimersByTime(10_000);
    expect(onDeadline).not.toHaveBeenCalled();
    expect(ledger.closed).toBe(true);
  });
});

describe('run ledger: output, codes and calls', () => {
  let ledger: RunLedger;
  beforeEach(() => {
    ledger = new RunLedger(limits({ maxOutputBytes: 100, maxArgumentBytes: 10, maxConcurrentCalls: 1 }), { onDeadline: () => undefined });
  });
  afterEach(() => ledger.close());

  it('counts log lines as their entries in the result take them, and refuses what does not fit', () => {
    // {"level":"log","message":"hello"}: 33 bytes.
    expect(ledger.takeLog('log', 'hello')).toBe(true);
    expect(ledger.outputLeft).toBe(67);
    expect(ledger.takeLog('log', 'x'.repeat(60))).toBe(false);
    expect(ledger.outputLeft).toBe(67);
    expect(ledger.takeBytes(67)).toBe(true);
    expect(ledger.takeError({ name: 'Error', code: 'RUNTIME_ERROR', message: '' })).toBe(false);
    expect(ledger.outputLimit('console output')).toMatchObject({
      code: 'OUTPUT_LIMIT',
      message: expect.stringContaining('output limit of 100 bytes'),
    });
  });

  it("ends with the program's error when it fits, with the output limit's failure when it does not", () => {
    const small = { name: 'Error', code: 'RUNTIME_ERROR', message: 'no' };
    expect(ledger.endWithError(small)).toBe(small);
    expect(ledger.outputLeft).toBeLessThan(100);
    const big = { name: 'Error', code: 'RUNTIME_ERROR', message: 'x'.repeat(200) };
    expect(ledger.endWithError(big)).toMatchObject({
      code: 'OUTPUT_LIMIT',
      message: expect.stringMatching(/^the program's error \(\d+ bytes with its stack\)/),
    });
  });

  it('lets a result through when it fits in the output left, counting UTF-8 bytes', () => {
    expect(ledger.takeBytes(90)).toBe(true);
    expect(ledger.resultOverLimit('"12345678"')).toBeUndefined();
    // Five characters, 11 bytes of UTF-8: one past the 10 left.
    expect(ledger.resultOverLimit('"€€€"')).toMatchObject({
      code: 'OUTPUT_LIMIT',
      message: expect.stringContaining('the result (11 bytes of JSON)'),
    });
    expect(ledger.outputLeft).toBe(10);
  });

  it("gives the guest's bootstrap its call limits with the host's refusals as templates", () => {
    const guest = ledger.guestCallLimits();
    expect(guest).toMatchObject({ maxCalls: DEFAULT_RUN_LIMITS.maxCalls, maxArgumentBytes: 10 });
    expect(JSON.parse(guest.callLimitError)).toMatchObject({
      data: { code: 'CALL_LIMIT_EXCEEDED', capability: '{capability}', function: '{function}' },
    });
    expect(JSON.parse(guest.argumentLimitError)).toMatchObject({
      data: { code: 'INVALID_ARGUMENTS' },
      message: expect.stringContaining('are at least {size} bytes of JSON, over the limit of 10 bytes'),
    });
  });

  it('reads a log level the program named, unknown ones as log', () => {
    expect(knownLogLevel('warn')).toBe('warn');
    expect(knownLogLevel('trace')).toBe('log');
    expect(knownLogLevel('__proto__')).toBe('log');
  });

  it('lets a program end only with its own codes and those of errors it was answered', () => {
    expect(ledger.readProgramError(JSON.stringify({ name: 'ToolCallError', code: 'NOT_FOUND', message: 'x' })).code).toBe('RUNTIME_ERROR');
    expect(ledger.readProgramError(JSON.stringify({ code: 'CALL_LIMIT_EXCEEDED', message: 'x' })).code).toBe('RUNTIME_ERROR');
    ledger.noteAnswer(false, toolError('NOT_FOUND'));
    ledger.noteAnswer(true, toolError('IGNORED_ON_SUCCESS'));
    ledger.programStarted();
    expect(ledger.readProgramError(JSON.stringify({ code: 'NOT_FOUND', message: 'x' })).code).toBe('NOT_FOUND');
    expect(ledger.readProgramError(JSON.stringify({ code: 'CALL_LIMIT_EXCEEDED', message: 'x' })).code).toBe('CALL_LIMIT_EXCEEDED');
    expect(ledger.readProgramError(JSON.stringify({ code: 'IGNORED_ON_SUCCESS', message: 'x' })).code).toBe('RUNTIME_ERROR');
    // TIMEOUT is the runtime's word: a worker may say it, a program may not.
    expect(ledger.readProgramError(JSON.stringify({ code: 'TIMEOUT', message: 'x' })).code).toBe('RUNTIME_ERROR');
    expect(ledger.readWorkerError(JSON.stringify({ code: 'TIMEOUT', message: 'x' })).code).toBe('TIMEOUT');
    expect(ledger.readWorkerError(JSON.stringify({ code: 'SANDBOX_CLOSED', message: 'x' })).code).toBe('RUNTIME_ERROR');
  });

  it('admits a call once per id, refuses long names and arguments over the limit in UTF-8 bytes', () => {
    expect(ledger.admitCall(1, 'math', 'add', '{"a":1}')).toEqual({ kind: 'admitted' });
    expect(ledger.admitCall(1, 'math', 'add', '{"a":1}')).toEqual({ kind: 'dropped' });
    expect(ledger.admitCall(1.5, 'math', 'add', '{}')).toEqual({ kind: 'dropped' });
    expect(ledger.admitCall(2, 'm'.repeat(MAX_NAME + 1), 'add', '{}')).toMatchObject({
      kind: 'refused',
      error: { data: { code: 'INVALID_ARGUMENTS' } },
    });
    // Eight characters, 20 bytes: over the 10-byte limit.
    expect(ledger.admitCall(3, 'math', 'add', '"€€€€€€"')).toMatchObject({
      kind: 'refused',
      error: { message: expect.stringContaining('20 bytes') },
    });
    expect(ledger.unansweredCalls).toBe(3);
    expect(ledger.answerCall(1, true, '3')).toBe(true);
    expect(ledger.answerCall(1, true, '3')).toBe(false);
    expect(ledger.answerCall(99, true, '3')).toBe(false);
    expect(ledger.answerCall(3, false, toolError('INVALID_ARGUMENTS'))).toBe(true);
    expect(ledger.unansweredCalls).toBe(1);
  });

  it('refuses calls past the argument characters a run may have unanswered, until some are answered', () => {
    const mib = 1024 * 1024;
    // 16 MiB may wait for a call slot, and 4 MiB be in the one call in flight.
    const calls = new RunLedger(limits({ maxArgumentBytes: 4 * mib, maxConcurrentCalls: 1 }), { onDeadline: () => undefined });
    const args = 'x'.repeat(4 * mib);
    for (let id = 1; id <= 5; id++) expect(calls.admitCall(id, 'a', 'b', args)).toEqual({ kind: 'admitted' });
    expect(calls.admitCall(6, 'a', 'b', args)).toMatchObject({
      kind: 'refused',
      error: { data: { code: 'CALL_LIMIT_EXCEEDED' }, message: expect.stringContaining(`${20 * mib} characters of arguments`) },
    });
    expect(calls.answerCall(6, false, '{}')).toBe(true);
    expect(calls.answerCall(1, true, 'null')).toBe(true);
    expect(calls.admitCall(7, 'a', 'b', args)).toEqual({ kind: 'admitted' });
    calls.close();
    expect(calls.admitCall(8, 'a', 'b', '{}')).toEqual({ kind: 'dropped' });
  });
});
