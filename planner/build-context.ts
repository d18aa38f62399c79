import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';

/** One step of the conversation: the model's reply and every answer to it, kept or dropped together. */
export interface Turn {
  messages: ChatCompletionMessageParam[];
  /** One line standing in for the turn once it is trimmed: `step 2: call_tool crm.searchCustomers → ok`. */
  digest: string;
}

export interface BuiltContext {
  messages: ChatCompletionMessageParam[];
  /** How many of the oldest turns were left out. */
  dropped: number;
  chars: number;
}

/**
 * The messages for the next request: the head (system prompt, task) always, then the newest turns that
 * fit in `limitChars`, the oldest dropped first and replaced by their one-line digests. A turn is never
 * split, so every tool call keeps its answer (the API rejects orphans), and the newest turn is always
 * kept whatever its size. Deterministic: the same history and limit give the same messages.
 */
export function buildContext(head: ChatCompletionMessageParam[], turns: Turn[], limitChars: number): BuiltContext {
  const sizes = turns.map((turn) => JSON.stringify(turn.messages).length);
  const headSize = JSON.stringify(head).length;
  let total = headSize + sizes.reduce((sum, size) => sum + size, 0);
  let dropped = 0;
  let note = '';
  while (total + note.length > limitChars && dropped < turns.length - 1) {
    total -= sizes[dropped] ?? 0;
    dropped++;
    note = trimNote(turns.slice(0, dropped));
  }
  const messages: ChatCompletionMessageParam[] = [...head];
  if (dropped > 0) messages.push({ role: 'user', content: note });
  for (const turn of turns.slice(dropped)) messages.push(...turn.messages);
  return { messages, dropped, chars: total + note.length };
}

function trimNote(turns: Turn[]): string {
  return `[Context trimmed: the ${turns.length} oldest step(s) were removed to keep the context small. What they did:\n${turns.map((turn) => `- ${turn.digest}`).join('\n')}]`;
}
