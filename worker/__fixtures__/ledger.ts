// A test capability with visible side effects: every performed call appends a line to
// $LEDGER_DIR/effects.log, so a test can tell which calls ran and how often. `gate` and `hold` wait
// until the test creates $LEDGER_DIR/open-<name> (a run held mid-flight, to kill its worker); `charge`
// does its effect first and then waits (a call in flight whose effect happened).
import { appendFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { defineFunction, defineTool } from 'agent-spaces';

const dir = (): string => process.env.LEDGER_DIR ?? '.';
const effect = (line: string): void => appendFileSync(path.join(dir(), 'effects.log'), `${line}\n`);

async function waitForOpen(name: string, signal: AbortSignal): Promise<void> {
  appendFileSync(path.join(dir(), 'waiting.log'), `${name}\n`);
  while (!existsSync(path.join(dir(), `open-${name}`))) {
    if (signal.aborted) throw new Error('the run ended');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const ledger = defineTool({
  name: 'ledger',
  description: 'Side effects a test can count',
  functions: {
    record: defineFunction({
      description: 'Append an item to the effects log',
      parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } as const,
      handler: ({ item }) => {
        effect(`record ${item}`);
        return { item };
      },
    }),
    gate: defineFunction({
      description: 'Wait until the test opens the gate (the config marks it idempotent)',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const,
      handler: async ({ name }, context) => {
        await waitForOpen(name, context.signal);
        return { opened: name };
      },
    }),
    hold: defineFunction({
      description: 'Wait until the test opens the gate, then record (not idempotent)',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const,
      handler: async ({ name }, context) => {
        await waitForOpen(name, context.signal);
        effect(`hold ${name}`);
        return { held: name };
      },
    }),
    charge: defineFunction({
      description: 'Charge a customer: the charge is recorded at once, then the call waits until the test opens the gate (not idempotent)',
      parameters: { type: 'object', properties: { nonce: { type: 'string' }, gate: { type: 'string' } }, required: ['nonce', 'gate'] } as const,
      handler: async ({ nonce, gate }, context) => {
        effect(`charge ${nonce}`);
        await waitForOpen(gate, context.signal);
        return { charged: nonce };
      },
    }),
    echo: defineFunction({
      description: 'Return the item (no side effect; not marked idempotent: journaled as started, then finished)',
      parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } as const,
      handler: ({ item }) => ({ item }),
    }),
    peek: defineFunction({
      description: 'Return the item (no side effect; the config marks it idempotent: journaled once, finished)',
      parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } as const,
      handler: ({ item }) => ({ item }),
    }),
    send: defineFunction({
      description: 'Send an item (requires approval)',
      parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } as const,
      requiresApproval: true,
      approvalMessage: 'Send {item}?',
      handler: ({ item }) => {
        effect(`send ${item}`);
        return { sent: item };
      },
    }),
  },
});
