/**
 * The standard library behind the real bridge: its zod schemas become JSON Schemas that the bridge
 * validates against, its results pass their own output schemas, and approvals cover fs.remove.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest, BridgeEvent, CallContext } from '../core/index.js';
import { createStdTools } from '../std/index.js';
import type { Bridge } from './bridge.js';
import { createBridge } from './create-bridge.js';
import { createInProcessBackend } from '../core/index.js';
import { capabilitySpecFromTool } from './test-support/capability-spec-from-tool.js';

let root: string;
let bridge: Bridge;
const events: BridgeEvent[] = [];
const requests: ApprovalRequest[] = [];
const context: CallContext = { runId: 'run-std', signal: new AbortController().signal };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-spaces-std-bridge-'));
  const tools = Object.fromEntries(
    createStdTools({ root, now: () => Date.parse('2024-01-02T03:04:05Z') }).map((tool) => [`std-${tool.name}`, tool]),
  );
  const backend = createInProcessBackend(tools);
  bridge = createBridge({
    capabilities: Object.entries(tools).map(([module, tool]) => capabilitySpecFromTool(tool, module)),
    backends: () => backend,
    approvalHandler: (request) => (
      requests.push(request),
      request.params !== null && (request.params as { path?: string }).path !== 'keep.txt'
    ),
    onEvent: (event) => events.push(event),
  });
});
afterEach(async () => {
  events.length = 0;
  requests.length = 0;
  await bridge.close();
  await rm(root, { recursive: true, force: true });
});

describe('std through the bridge', () => {
  it('validates arguments against the schemas derived from zod and checks results against their output schemas', async () => {
    await expect(
      bridge.handle({ capability: 'std-fs', function: 'writeFile', args: { path: 'a.csv', content: 'x,y\n1,2\n' } }, context),
    ).resolves.toEqual({ path: 'a.csv', bytes: 8 });
    const text = await bridge.handle({ capability: 'std-fs', function: 'readFile', args: { path: 'a.csv' } }, context);
    await expect(bridge.handle({ capability: 'std-csv', function: 'parse', args: { text } }, context)).resolves.toEqual([
      { x: '1', y: '2' },
    ]);
    await expect(bridge.handle({ capability: 'std-time', function: 'now', args: {} }, context)).resolves.toMatchObject({
      iso: '2024-01-02T03:04:05.000Z',
    });
    await expect(bridge.handle({ capability: 'std-crypto', function: 'randomUUID', args: {} }, context)).resolves.toMatch(
      /^[0-9a-f-]{36}$/,
    );
    await expect(bridge.handle({ capability: 'std-fs', function: 'readFile', args: { encoding: 'latin1' } }, context)).rejects.toThrow(
      'tool "readFile" of capability "std-fs": argument "path" is required; argument "encoding" must be one of "utf8", "base64" (got "latin1")',
    );
  });

  it('asks approval for fs.remove with the message computed on the host, and honours a denial', async () => {
    await writeFile(join(root, 'old.txt'), 'x');
    await writeFile(join(root, 'keep.txt'), 'x');
    await expect(bridge.handle({ capability: 'std-fs', function: 'remove', args: { path: 'old.txt' } }, context)).resolves.toEqual({
      path: 'old.txt',
      removed: true,
    });
    await expect(bridge.handle({ capability: 'std-fs', function: 'remove', args: { path: 'keep.txt' } }, context)).rejects.toMatchObject({
      code: 'APPROVAL_DENIED',
    });
    expect(requests.map((request) => request.message)).toEqual([
      'Delete "old.txt" from the workspace?',
      'Delete "keep.txt" from the workspace?',
    ]);
    await expect(bridge.handle({ capability: 'std-fs', function: 'exists', args: { path: 'keep.txt' } }, context)).resolves.toBe(true);
  });

  it('reports a refused path as FORBIDDEN in the tool-call-end event', async () => {
    await expect(bridge.handle({ capability: 'std-fs', function: 'readFile', args: { path: '../x' } }, context)).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'tool-call-end',
      ok: false,
      capability: 'std-fs',
      function: 'readFile',
      error: { code: 'FORBIDDEN' },
    });
  });
});
