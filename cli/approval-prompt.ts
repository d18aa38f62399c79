import { createInterface } from 'node:readline/promises';
import type { Readable, Writable } from 'node:stream';
import { escapeControlCharacters, formatArguments } from '../bridge/index.js';
import type { ApprovalHandler, ApprovalRequest } from '../core/index.js';
import { UsageError } from './output.js';

/** Where the interactive prompt asks: the process's terminal unless a test gives other streams. */
export interface PromptTerminal {
  input: Readable & { isTTY?: boolean };
  output: Writable;
}

/**
 * The CLI's approval handler: `--approve all|none`, else an interactive y/N prompt on the terminal.
 * Without a terminal and without `--approve`, calls that require approval are denied.
 */
export function createCliApprovalHandler(
  mode: string | undefined,
  terminal: PromptTerminal = { input: process.stdin, output: process.stderr },
): ApprovalHandler | undefined {
  if (mode === 'all') return () => ({ approved: true, reason: 'approved by --approve all' });
  if (mode === 'none') return () => ({ approved: false, reason: 'denied by --approve none' });
  if (mode !== undefined) throw new UsageError(`--approve takes "all" or "none" (got "${mode}")`);
  if (terminal.input.isTTY !== true) return undefined;
  let queue = Promise.resolve();
  return (request) => {
    // One question at a time, even when parallel calls ask together.
    const answer = queue.then(async () => {
      const rl = createInterface({ input: terminal.input, output: terminal.output });
      try {
        const reply = await rl.question(formatApprovalPrompt(request));
        return { approved: /^y(es)?$/i.test(reply.trim()), reason: 'answered at the prompt' };
      } finally {
        rl.close();
      }
    });
    queue = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  };
}

/**
 * The question put to the person approving: the call, the tool's message, then always the exact
 * arguments as JSON — a message may leave an argument out or describe it loosely, the arguments are what
 * runs. Nothing in it can steer the terminal (control and bidi characters are written as escapes).
 *
 * @example
 * formatApprovalPrompt({ capability: 'std-fs', function: 'remove', params: { path: 'a.txt' }, message: 'Delete "a.txt"?', timestamp })
 * // → '\n[approval] std-fs.remove: Delete "a.txt"?\n  arguments: {"path":"a.txt"}\nAllow? [y/N] '
 */
export function formatApprovalPrompt(request: ApprovalRequest): string {
  const line = (text: string): string => escapeControlCharacters(text, { keepLayout: false });
  return `\n[approval] ${line(request.capability)}.${line(request.function)}: ${line(request.message)}\n  arguments: ${formatArguments(request.params)}\nAllow? [y/N] `;
}
