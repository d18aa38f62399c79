// executeTask end to end: the real openai client against a scripted OpenAI-compatible server, on the real
// example space (JSON, TypeScript and MCP capabilities, worker sandbox).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../space/index.js';
import { makeExampleSpace } from '../test/support/example-space.js';
import { callReply } from '../test/support/scripted-model-server.js';
import { PLANNER_PROMPT } from './prompt.js';
import { runScriptedTask, toolAnswer } from './test-support/run-scripted-task.js';

let space: Space;

beforeAll(async () => {
  const { root } = await makeExampleSpace('planner');
  space = await createSpace({ cwd: root });
  await space.build();
});
afterAll(async () => {
  await space.close();
});

const MORNING_TRAINS = `import { trainSchedule } from '@capabilities/train-schedule';
const trips = await trainSchedule.getSchedule({ station: 'Central' });
const morning = trips.filter((trip) => trip.hour < 12);
console.log(\`\${morning.length} of \${trips.length} trips leave before noon\`);
export default { morning: morning.length, destinations: [...new Set(morning.map((trip) => trip.destination))].sort() };`;

describe('executeTask', () => {
  it('solves a task with one direct call, sending exactly the four tools and the canonical prompt', async () => {
    const { result, server, events } = await runScriptedTask(
      space,
      [
        callReply('call_tool', { name: 'crm.searchCustomers', arguments: { query: 'acme' } }),
        callReply('finish', { summary: 'Two customers match "acme".', result: { count: 2 } }),
      ],
      { context: 'The user works in support.' },
      'How many customers are called Acme?',
    );
    expect(result).toMatchObject({ success: true, finalSummary: 'Two customers match "acme".', result: { count: 2 }, error: null });
    expect(result.rawOutputs).toEqual([
      {
        step: 1,
        kind: 'tool-call',
        name: 'crm.searchCustomers',
        ok: true,
        value: [expect.objectContaining({ name: 'Acme Corp' }), expect.objectContaining({ name: 'Acme Labs' })],
      },
    ]);
    expect(result.budgetUsage).toMatchObject({ steps: 2, toolCalls: 1, codeRuns: 0, tokens: { input: 2000, cachedInput: 0, output: 200 } });
    expect(result.budgetUsage.llmCostUsd).toBeCloseTo((2000 * 0.4 + 200 * 1.6) / 1e6, 10);

    const [first, second] = server.chatRequests();
    expect(first?.tools?.map((tool) => tool.function.name)).toEqual(['search_tools', 'call_tool', 'run_code', 'finish']);
    expect(first?.messages[0]).toEqual({ role: 'system', content: PLANNER_PROMPT });
    expect(first?.messages[1]).toEqual({
      role: 'user',
      content: 'Task: How many customers are called Acme?\n\nContext:\nThe user works in support.',
    });
    expect(toolAnswer(server, 1, 'call_1_1')).toMatchObject({
      ok: true,
      value: [{ id: 'c-001' }, { id: 'c-004' }],
      budget: expect.stringMatching(/^step 1\/10, tool calls 1\/30, code runs 0\/3, \$0\.0006\/\$0\.5$/),
    });
    expect(second?.messages).toHaveLength(4);
    expect(events.map((event) => event.type)).toEqual(['task-start', 'model-reply', 'tool-call', 'model-reply', 'task-finish']);
    expect(events.every((event) => event.taskId === result.taskId)).toBe(true);
    expect(events.find((event) => event.type === 'tool-call')?.step).toBe(1);
  });

  it('goes search → code run → finish, counting the calls made inside the code', async () => {
    const { result, server, events } = await runScriptedTask(space, [
      callReply('search_tools', { query: 'train schedule departures', detail_level: 'summary', limit: 5 }),
      callReply('run_code', { code: MORNING_TRAINS }),
      callReply('finish', { summary: '5 morning trains.' }),
    ]);
    expect(result.success).toBe(true);
    const search = toolAnswer(server, 1, 'call_1_1') as { matches: { id: string; signature?: string }[] };
    expect(search.matches[0]?.id).toBe('train-schedule.getSchedule');
    expect(search.matches[0]?.signature).toContain('getSchedule(');
    expect(toolAnswer(server, 2, 'call_2_1')).toMatchObject({
      ok: true,
      value: { morning: 5 },
      logs: ['5 of 8 trips leave before noon'],
      calls: 1,
    });
    expect(result.budgetUsage).toMatchObject({ steps: 3, toolCalls: 1, codeRuns: 1 });
    expect(events.find((event) => event.type === 'search-run')).toMatchObject({
      step: 1,
      query: 'train schedule departures',
      matches: expect.any(Number),
    });
    expect(events.find((event) => event.type === 'code-run')).toMatchObject({ step: 2, ok: true, calls: 1, counted: true });
  });

  it('sends type errors back to the model, which fixes its code; the failed check costs no code run', async () => {
    const broken = `import { trainSchedule } from '@capabilities/train-schedule';\nconst trips = await trainSchedule.getSchedule({ stationName: 'Central' });\nexport default trips.length;`;
    const fixed = `import { trainSchedule } from '@capabilities/train-schedule';\nconst trips = await trainSchedule.getSchedule({ station: 'Central' });\nexport default trips.length;`;
    const { result, server } = await runScriptedTask(
      space,
      [callReply('run_code', { code: broken }), callReply('run_code', { code: fixed }), callReply('finish', { summary: '8 trips' })],
      { budget: { maxCodeRuns: 1 } },
    );
    const failed = toolAnswer(server, 1, 'call_1_1') as {
      ok: boolean;
      error: { code: string; line: number; diagnostics: { message: string }[] };
      note: string;
    };
    expect(failed.ok).toBe(false);
    expect(failed.error.code).toBe('TYPE_CHECK_FAILED');
    expect(failed.error.line).toBe(2);
    expect(failed.error.diagnostics[0]?.message).toMatch(/stationName/);
    expect(toolAnswer(server, 2, 'call_2_1')).toMatchObject({ ok: true, value: 8 });
    expect(result).toMatchObject({ success: true, budgetUsage: { codeRuns: 1, steps: 3 } });
  });

  it('reports a denied approval to the model (no handler) and lets it finish', async () => {
    const { result, server } = await runScriptedTask(space, [
      callReply('call_tool', {
        name: 'crm.createTicket',
        arguments: { customerId: 'c-001', subject: 'Printer on fire', priority: 'high' },
      }),
      callReply('finish', { summary: 'The ticket could not be created: approval was denied.' }),
    ]);
    expect(toolAnswer(server, 1, 'call_1_1')).toMatchObject({ ok: false, error: { code: 'APPROVAL_DENIED' } });
    expect(result.rawOutputs[0]).toMatchObject({
      kind: 'tool-call',
      name: 'crm.createTicket',
      ok: false,
      error: expect.stringMatching(/approv/i),
    });
    expect(result.success).toBe(true);
  });

  it('answers malformed replies (bad JSON, unknown tool, no call, unknown id) and parallel calls without crashing', async () => {
    const { result, server, events } = await runScriptedTask(space, [
      {
        toolCalls: [
          { name: 'call_tool', arguments: '{"name": "crm.searchCustomers", "arguments": {' },
          { name: 'get_weather', arguments: { location: 'Oslo' } },
        ],
      },
      { content: 'I think the answer is 42.' },
      {
        toolCalls: [
          { name: 'call_tool', arguments: { name: 'crm.searchCustomer', arguments: { query: 'a' } } },
          { name: 'call_tool', arguments: { name: 'get-weather.getWeather', arguments: { location: 'London' } } },
        ],
      },
      callReply('finish', { summary: 'done' }),
    ]);
    expect(result.success).toBe(true);
    expect(toolAnswer(server, 1, 'call_1_1')).toMatchObject({
      ok: false,
      error: { code: 'INVALID_CALL', message: expect.stringMatching(/not valid JSON/) },
    });
    expect(toolAnswer(server, 1, 'call_1_2')).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/no function "get_weather"/) },
    });
    const nudge = server.chatRequests()[2]?.messages.at(-1);
    expect(nudge).toMatchObject({ role: 'user', content: expect.stringMatching(/called no function/) });
    expect(toolAnswer(server, 3, 'call_3_1')).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_FUNCTION', message: expect.stringMatching(/did you mean crm\.searchCustomers/) },
    });
    expect(toolAnswer(server, 3, 'call_3_2')).toMatchObject({ ok: true, value: { location: 'London' } });
    expect(result.budgetUsage).toMatchObject({ steps: 4, toolCalls: 1 });
    // Rejected calls are telemetry too, so progress shows why a step did nothing.
    expect(events.filter((event) => event.type === 'call-rejected')).toMatchObject([
      { step: 1, function: 'call_tool', message: expect.stringMatching(/not valid JSON/) },
      { step: 1, function: 'get_weather', message: expect.stringMatching(/no function "get_weather"/) },
    ]);
    expect(events.filter((event) => event.type === 'tool-call' && !event.ok)).toMatchObject([
      { step: 3, name: 'crm.searchCustomer', error: { code: 'UNKNOWN_FUNCTION' } },
    ]);
  });

  it("hides functions that tools.allow leaves out, from search, direct calls and code, and appends the caller's instructions", async () => {
    const { result, server } = await runScriptedTask(
      space,
      [
        callReply('search_tools', { query: 'ticket' }),
        callReply('call_tool', { name: 'crm.createTicket', arguments: { customerId: 'c-001', subject: 'x' } }),
        callReply('run_code', {
          code: `import { crm } from '@capabilities/crm';\nexport default await crm.createTicket({ customerId: 'c-001', subject: 'x' });`,
        }),
        callReply('finish', { summary: 'not allowed' }),
      ],
      { tools: { allow: (entry) => !entry.requiresApproval }, systemPrompt: 'You are the support agent. Be brief.' },
    );
    expect(result.success).toBe(true);
    const first = server.chatRequests()[0];
    expect(first?.messages[0]?.content).toBe(`${PLANNER_PROMPT}\n\nAdditional instructions:\nYou are the support agent. Be brief.`);
    const search = toolAnswer(server, 1, 'call_1_1') as { matches: { id: string }[] };
    expect(search.matches.map((match) => match.id)).toContain('crm.listTickets');
    expect(search.matches.map((match) => match.id)).not.toContain('crm.createTicket');
    expect(toolAnswer(server, 2, 'call_2_1')).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_FUNCTION', message: expect.stringMatching(/not available|no tool/) },
    });
    // The program ran; the bridge refused its call to the hidden function (no source-text check).
    expect(toolAnswer(server, 3, 'call_3_1')).toMatchObject({
      ok: false,
      error: { code: 'ACCESS_DENIED', message: expect.stringMatching(/crm\.createTicket is not available to this task/) },
    });
    expect(result.budgetUsage).toMatchObject({ toolCalls: 1, codeRuns: 1 });
  });

  it('creates (and closes) its own space from cwd, with the approval handler it is given', async () => {
    const { root } = await makeExampleSpace('planner-own');
    const asked: string[] = [];
    const { result, server } = await runScriptedTask(
      undefined,
      [
        callReply('call_tool', { name: 'crm.createTicket', arguments: { customerId: 'c-002', subject: 'VPN down', priority: 'high' } }),
        callReply('finish', { summary: 'ticket created' }),
      ],
      { cwd: root, approvalHandler: (request) => (asked.push(request.message), true) },
    );
    expect(asked).toEqual(['Create high ticket for customer c-002: "VPN down"?']);
    expect(toolAnswer(server, 1, 'call_1_1')).toMatchObject({ ok: true, value: { customerId: 'c-002', subject: 'VPN down' } });
    expect(result.success).toBe(true);
  });

  it('stops when its signal is aborted, with what was done so far', async () => {
    const controller = new AbortController();
    const { result } = await runScriptedTask(
      space,
      [callReply('call_tool', { name: 'crm.listTickets' }), callReply('finish', { summary: 'never' })],
      {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'tool-call') controller.abort(new Error('the user pressed Ctrl-C'));
        },
      },
    );
    expect(result).toMatchObject({ success: false, error: 'cancelled: the user pressed Ctrl-C', budgetUsage: { steps: 1 } });
    expect(result.finalSummary).toMatch(/call_tool crm\.listTickets → ok/);
  });
});
