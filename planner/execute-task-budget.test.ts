// Budgets, context trimming, replay and the endpoint checks of executeTask, on the real example space.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/index.js';
import { createSpace, type Space } from '../space/index.js';
import { makeExampleSpace } from '../test/support/example-space.js';
import { callReply, startScriptedModelServer, type ChatRequestBody } from '../test/support/scripted-model-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { executeTask } from './execute-task.js';
import { ModelError } from './model-error.js';
import { runScriptedTask } from './test-support/run-scripted-task.js';
import { readTrace } from './trace-file.js';

let space: Space;

beforeAll(async () => {
  const { root } = await makeExampleSpace('planner-budget');
  space = await createSpace({ cwd: root });
  await space.build();
});
afterAll(async () => {
  await space.close();
});

const search = (query: string) => callReply('search_tools', { query });
const customers = callReply('call_tool', { name: 'crm.searchCustomers', arguments: { query: 'a' } });
const finish = callReply('finish', { summary: 'done' });

describe('executeTask budgets', () => {
  it('stops at maxSteps with the limit named and a partial summary of what was done', async () => {
    const { result, events } = await runScriptedTask(space, [search('weather'), customers, search('x')], { budget: { maxSteps: 2 } });
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/^budget exceeded: maxSteps/);
    expect(result.finalSummary).toMatch(
      /stopped before it was finished[\s\S]*search_tools "weather"[\s\S]*call_tool crm\.searchCustomers → ok/,
    );
    expect(result.budgetUsage.steps).toBe(2);
    expect(events.filter((event) => event.type === 'budget-exceeded')).toMatchObject([{ limit: 'maxSteps' }]);
    expect(events.at(-1)).toMatchObject({ type: 'task-finish', success: false });
  });

  it('stops at maxToolCalls for direct calls, before the call that would pass it', async () => {
    const { result } = await runScriptedTask(
      space,
      [
        customers,
        {
          toolCalls: [
            { name: 'call_tool', arguments: { name: 'crm.listTickets' } },
            { name: 'call_tool', arguments: { name: 'crm.listTickets' } },
          ],
        },
        finish,
      ],
      { budget: { maxToolCalls: 2 } },
    );
    expect(result).toMatchObject({ success: false, budgetUsage: { toolCalls: 2 } });
    expect(result.error).toMatch(/maxToolCalls/);
    expect(result.rawOutputs).toHaveLength(2);
  });

  it('counts calls made inside code and stops a program that passes maxToolCalls', async () => {
    const code = `import { getWeather } from '@capabilities/get-weather';\nfor (const city of ['London', 'Tokyo', 'Berlin', 'London']) await getWeather({ location: city });\nexport default 'all';`;
    const { result, events } = await runScriptedTask(space, [customers, callReply('run_code', { code }), finish], {
      budget: { maxToolCalls: 3 },
    });
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/maxToolCalls/);
    expect(result.budgetUsage.toolCalls).toBe(3);
    expect(events.find((event) => event.type === 'code-run')).toMatchObject({
      ok: false,
      calls: 2,
      error: { code: 'CALL_LIMIT_EXCEEDED' },
    });
  });

  it('stops at maxCodeRuns when another run is asked for', async () => {
    const code = `export default 1;`;
    const { result } = await runScriptedTask(space, [callReply('run_code', { code }), callReply('run_code', { code }), finish], {
      budget: { maxCodeRuns: 1 },
    });
    expect(result).toMatchObject({ success: false, budgetUsage: { codeRuns: 1, steps: 2 } });
    expect(result.error).toMatch(/maxCodeRuns/);
  });

  it('stops at maxLlmCostUsd right after the reply that passes it, without acting on that reply', async () => {
    const expensive = { prompt_tokens: 20_000, completion_tokens: 1_000, cached_tokens: 10_000 };
    const { result } = await runScriptedTask(space, [callReply('call_tool', { name: 'crm.listTickets' }, expensive), finish], {
      budget: { maxLlmCostUsd: 0.005 },
    });
    // gpt-4.1-mini: 10k new input × $0.40 + 10k cached × $0.10 + 1k output × $1.60 per million = $0.0066
    expect(result.budgetUsage.llmCostUsd).toBeCloseTo(0.0066, 8);
    expect(result.budgetUsage.tokens).toEqual({ input: 10_000, cachedInput: 10_000, output: 1_000 });
    expect(result).toMatchObject({ success: false, rawOutputs: [] });
    expect(result.error).toBe('budget exceeded: maxLlmCostUsd ($0.0066 spent, limit $0.005)');
  });

  it('counts an unknown model as free, and says so', async () => {
    const { result } = await runScriptedTask(space, [finish], { model: { model: 'llama3.1:8b' } });
    expect(result.success).toBe(true);
    expect(result.budgetUsage.llmCostUsd).toBe(0);
    expect(result.logs[0]).toMatch(/no price known for model "llama3\.1:8b"/);
  });
});

describe('executeTask context and replay', () => {
  it('trims the oldest steps past contextLimitChars, keeping tool calls paired with their answers', async () => {
    const replies = [customers, search('train'), customers, search('weather'), customers, finish];
    const { result, server } = await runScriptedTask(space, replies, { contextLimitChars: 4_000 });
    expect(result.success).toBe(true);
    const last = server.chatRequests().at(-1) as ChatRequestBody;
    expect(last.messages[2]).toMatchObject({ role: 'user', content: expect.stringMatching(/^\[Context trimmed: the \d+ oldest step/) });
    expect(last.messages[2]?.content).toContain('step 1: call_tool crm.searchCustomers → ok');
    expect(JSON.stringify(last.messages).length).toBeLessThan(4_500);
    for (const request of server.chatRequests()) {
      const asked = request.messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
      const answered = request.messages.flatMap((message) =>
        message.role === 'tool' && message.tool_call_id ? [message.tool_call_id] : [],
      );
      expect(answered).toEqual(asked);
    }
  });

  it('replays a recorded trace against the tools without a model, reproducing the result', async () => {
    const trace = path.join(await makeTempDir('planner-trace'), 'trace.jsonl');
    const recorded = await runScriptedTask(
      space,
      [
        search('weather'),
        callReply('run_code', {
          code: `import { getWeather } from '@capabilities/get-weather';\nexport default (await getWeather({ location: 'Tokyo' })).temperature;`,
        }),
        callReply('finish', { summary: 'Tokyo measured.', result: { ok: 1 } }),
      ],
      { trace },
      'How warm is Tokyo?',
    );
    expect(recorded.result.success).toBe(true);
    const lines = (await readFile(trace, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((line) => line.type)).toEqual([
      'task-start',
      'model-reply',
      'search-run',
      'model-reply',
      'code-run',
      'model-reply',
      'task-finish',
    ]);

    const replay = await readTrace(trace);
    expect(replay.task).toBe('How warm is Tokyo?');
    const again = await executeTask(replay.task, {
      space,
      replay: replay.replies,
      model: { model: replay.model },
      trace: false,
      runDir: await makeTempDir('planner-replay'),
    });
    expect(again.success).toBe(true);
    expect(again.finalSummary).toBe(recorded.result.finalSummary);
    expect(again.result).toEqual(recorded.result.result);
    expect(again.rawOutputs).toEqual(recorded.result.rawOutputs);
    expect(again.budgetUsage).toEqual(recorded.result.budgetUsage);
  });

  it('fails clearly when a replay runs out of recorded replies', async () => {
    const result = await executeTask('x', {
      space,
      replay: [
        {
          message: {
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_tools', arguments: '{"query":"a"}' } }],
          },
          usage: null,
        },
      ],
      trace: false,
      runDir: await makeTempDir('planner-replay'),
    });
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/no model reply number 2/);
  });
});

describe('executeTask endpoint checks', () => {
  it('refuses to start without a key for OpenAI, saying what to set', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      await expect(executeTask('x', { space, model: { baseURL: 'https://api.openai.com/v1' } })).rejects.toThrow(ConfigError);
      await expect(executeTask('x', { space, model: { baseURL: 'https://api.openai.com/v1' } })).rejects.toThrow(/set OPENAI_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('refuses to start when the endpoint is unreachable or rejects the key, naming the base URL', async () => {
    const unreachable = executeTask('x', { space, model: { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k' } });
    await expect(unreachable).rejects.toThrow(ModelError);
    await expect(unreachable).rejects.toThrow(/http:\/\/127\.0\.0\.1:9\/v1 is unreachable/);
    const server = await startScriptedModelServer([finish], { apiKey: 'right' });
    try {
      await expect(executeTask('x', { space, model: { baseURL: server.baseURL, apiKey: 'wrong' } })).rejects.toThrow(/refused the API key/);
      expect(server.chatRequests()).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
