// The BFCL multi-turn suite: the parser of BFCL's call strings, the port on the ground truth, the task's
// world loaded for the task the harness runs, BFCL's random draws, the state check, and oracle runs in the three arms.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEval } from '../../run-eval.js';
import { suiteEnvironment } from '../../suite-environment.js';
import { loadSuite } from '../../suite.js';
import type { BfclWorld } from './bfcl-world.js';
import { CallSyntaxError, namedArguments, parseCall } from './call-syntax.js';
import { callsOf } from './ground-truth.js';
import { makeTempDir } from '../../../test/support/temp-dir.js';

const suite = await loadSuite('bfcl-multi-turn');
const environment = suiteEnvironment<BfclWorld>('bfcl-multi-turn');

const task = (id: string) => {
  const found = suite.tasks.find((t) => t.id === id);
  if (!found) throw new Error(`no task ${id}`);
  return found;
};

/** Resets to the task's world, as the harness does before a run, and plays calls on it. */
function runOnLiveWorld(id: string, calls: readonly { name: string; arguments: Record<string, unknown> }[]): void {
  suite.reset(task(id));
  for (const call of calls) environment.get().call(call.name, call.arguments);
}

describe('parseCall (BFCL ground-truth call strings)', () => {
  it('reads keyword and positional arguments of Python literals', () => {
    expect(parseCall("lockDoors(unlock=False, door=['driver', 'rear_left'])")).toEqual({
      name: 'lockDoors',
      positional: [],
      keyword: { unlock: false, door: ['driver', 'rear_left'] },
    });
    expect(parseCall(`post_tweet('It\\'s "done"', tags=['#a'], mentions=[])`)).toEqual({
      name: 'post_tweet',
      positional: [`It's "done"`],
      keyword: { tags: ['#a'], mentions: [] },
    });
    expect(parseCall("comment(tweet_id = 10, comment_content = 'x')").keyword).toEqual({ tweet_id: 10, comment_content: 'x' });
    expect(parseCall('f(a=-1.5, b=None, c=True, d={"k": (1, 2e3)}, e=.5)').keyword).toEqual({
      a: -1.5,
      b: null,
      c: true,
      d: { k: [1, 2000] },
      e: 0.5,
    });
    expect(parseCall('check_tire_pressure()')).toEqual({ name: 'check_tire_pressure', positional: [], keyword: {} });
  });

  it('names positional arguments in the signature order and refuses unknown or repeated ones', () => {
    expect(namedArguments(parseCall("post_tweet('Hi', tags=['#a'])"), ['content', 'tags', 'mentions'])).toEqual({
      content: 'Hi',
      tags: ['#a'],
    });
    expect(() => namedArguments(parseCall("f('a', x='b')"), ['x'])).toThrow('f: argument "x" given twice');
    expect(() => namedArguments(parseCall('f(y=1)'), ['x'])).toThrow('f has no parameter "y"');
    expect(() => namedArguments(parseCall('f(1, 2)'), ['x'])).toThrow('f takes 1 arguments, 2 given positionally');
  });

  it('refuses what is not a call of literals, saying where', () => {
    expect(() => parseCall('f(x=1+2)')).toThrow(CallSyntaxError);
    expect(() => parseCall('f(x=y)')).toThrow('"y" is not a literal at character 5');
    expect(() => parseCall('f(x=1, 2)')).toThrow('a positional argument after a keyword argument');
    expect(() => parseCall("f(x='open)")).toThrow('unterminated string');
    expect(() => parseCall('f(x=1) and g()')).toThrow('unexpected text after the call');
    expect(() => parseCall("f(x='\\x41')")).toThrow('unsupported escape "\\x"');
  });

  it('names the task whose ground truth it cannot read', () => {
    expect(() => callsOf({ id: 'multi_turn_base_7', ground_truth: [['startEngine(ignitionMode=START)']] })).toThrow(
      'BFCL task multi_turn_base_7: cannot read the ground-truth call startEngine(ignitionMode=START): "START" is not a literal',
    );
  });
});

describe('bfcl-multi-turn suite', () => {
  it("has BFCL's 42 VehicleControlAPI/TwitterAPI/MessageAPI tasks and 299 ground-truth calls, all of which run without an error", () => {
    expect(suite.tasks).toHaveLength(42);
    expect(suite.tasks.reduce((sum, t) => sum + t.calls.length, 0)).toBe(299);
    expect(suite.splits).toMatchObject({
      vehicle: expect.any(Array),
      'vehicle+twitter': expect.any(Array),
      'vehicle+message': expect.any(Array),
    });
    expect(Object.values(suite.splits ?? {}).map((ids) => ids.length)).toEqual([19, 14, 9]);
    const errors = suite.tasks.flatMap((t) =>
      suite
        .replay(t.calls)
        .flatMap((outcome, index) =>
          !outcome.ok || (typeof outcome.value === 'object' && outcome.value !== null && 'error' in outcome.value)
            ? [`${t.id}/${index}`]
            : [],
        ),
    );
    expect(errors).toEqual([]);
    expect(task('52').calls[4]).toEqual({
      name: 'post_tweet',
      arguments: { content: 'Tires checked and engine purring smoothly!', tags: ['#RoadTrip'], mentions: ['@AutoUpdates'] },
    });
  });

  it("gives every user turn up front, and reset(task) loads that task's initial configuration", () => {
    expect(task('52').instruction).toMatch(/^The user made these requests one after another[\s\S]*\n\nRequest 4: Following the tweet/);
    suite.reset(task('52'));
    const world = environment.get();
    expect(world.taskId).toBe('52');
    expect(world.state()).toMatchObject({
      VehicleControlAPI: { fuelLevel: 15.5, parkingBrakeStatus: 'engaged', remainingUnlockedDoors: 0 },
      TwitterAPI: { authenticated: true, tweet_counter: 10 },
    });
    // A reset for another task replaces the instances with that task's, fresh.
    environment.get().call('setHeadlights', { mode: 'on' });
    suite.reset(task('50'));
    expect(environment.get().taskId).toBe('50');
    expect(() => suite.reset({ ...task('50'), id: 'no-such-task' })).toThrow('reset: no task no-such-task in the suite');
  });

  it("draws BFCL's random numbers: Python's generator with the scenario's seed (values from BFCL's own classes)", () => {
    const replayed = suite.replay(task('91').calls);
    expect(replayed[0]).toEqual({ ok: true, value: { outsideTemperature: 36.63485703790535 } });
    const sent = suite.replay(task('51').calls).at(-1);
    expect(sent).toEqual({
      ok: true,
      value: { sent_status: true, message_id: { new_id: 67410 }, message: "Message sent to 'USR002' successfully." },
    });
  });

  it('passes a task whose ground-truth calls were made on the live instances', () => {
    runOnLiveWorld('52', task('52').calls);
    expect(suite.check(task('52'), 'done')).toEqual({ success: true, reasons: [] });
  });

  it('fails a task whose final state misses the last call, naming the attribute that differs', () => {
    runOnLiveWorld('52', task('52').calls.slice(0, -1));
    expect(suite.check(task('52'), 'done')).toEqual({
      success: false,
      reasons: ["the final state differs from the ground truth's in TwitterAPI.comments"],
    });
  });

  it('fails a task when a call changed state the ground truth leaves alone', () => {
    runOnLiveWorld('50', [...task('50').calls, { name: 'adjustClimateControl', arguments: { temperature: 20 } }]);
    expect(suite.check(task('50'), 'done')).toEqual({
      success: false,
      reasons: ["the final state differs from the ground truth's in VehicleControlAPI.acTemperature, VehicleControlAPI.fanSpeed"],
    });
  });

  it('fails a task whose message went to the wrong receiver, naming the MessageAPI attribute', () => {
    const calls = task('51').calls.map((call) =>
      call.name === 'send_message' ? { ...call, arguments: { ...call.arguments, receiver_id: 'USR003' } } : call,
    );
    runOnLiveWorld('51', calls);
    expect(suite.check(task('51'), 'done')).toEqual({
      success: false,
      reasons: ["the final state differs from the ground truth's in MessageAPI.inbox"],
    });
  });

  it("fails a task checked against another task's instances, and a call to a class the task does not involve", () => {
    runOnLiveWorld('50', task('50').calls);
    expect(suite.check(task('52'), 'done')).toEqual({ success: false, reasons: ["the live instances are task 50's, not task 52's"] });
    expect(() => environment.get().call('post_tweet', { content: 'x' })).toThrow(
      'post_tweet belongs to TwitterAPI, which this task does not involve',
    );
  });

  it('passes its oracle runs in every arm, making exactly the ground-truth calls', async () => {
    // 50: two independent writes; 52: four turns across two classes, a comment on the tweet just posted;
    // 51: four turns ending in a login and a message.
    const run = await runEval({ suite: 'bfcl-multi-turn', tasks: '50,51,52', out: path.join(await makeTempDir('eval-bfcl'), 'run') });
    expect(run.results).toHaveLength(9);
    expect(run.results.filter((r) => !r.success).map((r) => `${r.arm} ${r.taskId}: ${r.reasons.join('; ')}`)).toEqual([]);
    for (const result of run.results) expect(result.toolCalls, `${result.arm} ${result.taskId}`).toBe(result.calls);
    const direct = run.results.find((r) => r.arm === 'direct' && r.taskId === '52');
    const code = run.results.find((r) => r.arm === 'code' && r.taskId === '52');
    expect(code?.promptTokens).toBeLessThan((direct?.promptTokens ?? 0) / 2);
  }, 120_000);
});
