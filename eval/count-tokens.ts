/**
 * Token counts for requests and replies when the endpoint reports no `usage` (and for the oracle, which
 * reports what it counts here). js-tiktoken's o200k_base (the GPT-4o/4.1/5 encoding) when the package
 * is installed (a devDependency of agent-spaces, not a dependency: 10.2 MB packed, 22.4 MB installed,
 * nine times the package; `npm install js-tiktoken` beside the package to have it at run time),
 * otherwise an estimate of 4 characters per token; `method` says which was used.
 * Chat formatting is approximated: 3 tokens per message plus its role, content and tool calls as text,
 * and the tool definitions as their JSON text.
 */
export interface TokenCounter {
  method: 'tiktoken-o200k_base' | 'estimate-4-chars';
  count(text: string): number;
}

let loading: Promise<TokenCounter> | undefined;

export function loadTokenCounter(): Promise<TokenCounter> {
  return (loading ??= (async (): Promise<TokenCounter> => {
    try {
      const { Tiktoken } = await import('js-tiktoken/lite');
      const { default: ranks } = await import('js-tiktoken/ranks/o200k_base');
      const encoder = new Tiktoken(ranks);
      return { method: 'tiktoken-o200k_base', count: (text) => encoder.encode(text).length };
    } catch {
      return { method: 'estimate-4-chars', count: (text) => Math.ceil(text.length / 4) };
    }
  })());
}

interface RequestMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  name?: string;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) => (typeof part === 'object' && part && 'text' in part ? String((part as { text: unknown }).text) : JSON.stringify(part)))
      .join('');
  return content === null || content === undefined ? '' : JSON.stringify(content);
}

/** The prompt tokens of a chat-completions request: its messages and its tool definitions. */
export function countRequestTokens(counter: TokenCounter, messages: readonly RequestMessage[], tools: readonly unknown[] = []): number {
  let total = 3;
  for (const message of messages) {
    total += 3 + counter.count(message.role) + counter.count(contentText(message.content));
    if (message.tool_calls) total += counter.count(JSON.stringify(message.tool_calls));
  }
  if (tools.length > 0) total += counter.count(JSON.stringify(tools));
  return total;
}

/** The completion tokens of a reply: its text and its tool calls (names and arguments). */
export function countReplyTokens(
  counter: TokenCounter,
  content: string | null,
  toolCalls: readonly { function: { name: string; arguments: string } }[] = [],
): number {
  return (
    counter.count(content ?? '') +
    toolCalls.reduce((sum, call) => sum + 3 + counter.count(call.function.name) + counter.count(call.function.arguments), 0)
  );
}
