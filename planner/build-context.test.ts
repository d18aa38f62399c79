import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { buildContext, type Turn } from './build-context.js';

const head: ChatCompletionMessageParam[] = [
  { role: 'system', content: 'prompt' },
  { role: 'user', content: 'Task: x' },
];

function turn(step: number, calls: number, size: number): Turn {
  const ids = Array.from({ length: calls }, (_, i) => `call_${step}_${i}`);
  return {
    digest: `step ${step}: did things`,
    messages: [
      {
        role: 'assistant',
        content: null,
        tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'call_tool', arguments: '{}' } })),
      },
      ...ids.map((id): ChatCompletionMessageParam => ({ role: 'tool', tool_call_id: id, content: 'r'.repeat(size) })),
    ],
  };
}

/** Every tool answer follows an assistant message that asked for it, and every call is answered. */
function pairsValid(messages: ChatCompletionMessageParam[]): boolean {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (open.size > 0) return false;
      for (const call of message.tool_calls ?? []) open.add(call.id);
    } else if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) return false;
    }
  }
  return open.size === 0;
}

describe('buildContext', () => {
  const turns = [turn(1, 2, 3000), turn(2, 1, 3000), turn(3, 3, 1000), turn(4, 1, 500)];

  it('keeps everything under the limit', () => {
    const built = buildContext(head, turns, 100_000);
    expect(built.dropped).toBe(0);
    expect(built.messages).toHaveLength(2 + turns.reduce((sum, t) => sum + t.messages.length, 0));
  });

  it('drops whole turns, oldest first, keeps the head and notes what was removed, with valid pairs', () => {
    const built = buildContext(head, turns, 6500);
    expect(built.dropped).toBe(2);
    expect(built.messages.slice(0, 2)).toEqual(head);
    expect(built.messages[2]).toMatchObject({
      role: 'user',
      content: expect.stringContaining('- step 1: did things\n- step 2: did things'),
    });
    expect(pairsValid(built.messages)).toBe(true);
    expect(built.chars).toBeLessThanOrEqual(6500);
    expect(buildContext(head, turns, 6500)).toEqual(built);
  });

  it('always keeps the newest turn whatever its size', () => {
    const built = buildContext(head, turns, 10);
    expect(built.dropped).toBe(3);
    expect(pairsValid(built.messages)).toBe(true);
    expect(built.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_4_0' });
  });
});
