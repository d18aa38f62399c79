import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../config/index.js';
import type { CapabilitySpec, FunctionSpec } from '../core/index.js';
import { createMcpSource } from '../sources/index.js';
import { applyCallers } from './apply-callers.js';

// The MCP source reads its servers' `callers` from the config.
const SOURCES = [createMcpSource()];

const fn = (name: string, extra: Partial<FunctionSpec> = {}): FunctionSpec => ({
  name,
  toolName: name,
  inputSchema: { type: 'object' },
  resultKind: 'value',
  ...extra,
});
const mcp = (server: string, functions: FunctionSpec[]): CapabilitySpec => ({
  module: `mcp-${server}`,
  namespace: server,
  source: { kind: 'mcp', server },
  config: {},
  functions,
});

describe('applyCallers', () => {
  it('takes the nearest setting: function, tool entry, capability, server, space', () => {
    const config = resolveConfig(
      {
        callers: 'code',
        mcpServers: {
          github: { url: 'https://example.com/mcp', callers: { delete_repo: 'direct', '*': 'both' } },
          notes: { url: 'https://example.com/notes', callers: 'direct' },
          other: { url: 'https://example.com/other' },
        },
      },
      { root: '/tmp', env: {} },
    );
    const specs = applyCallers(
      [
        mcp('github', [fn('delete_repo'), fn('list_repos'), fn('own', { callers: 'code' })]),
        mcp('notes', [fn('add')]),
        mcp('other', [fn('read')]),
        {
          module: 'ledger',
          namespace: 'ledger',
          source: { kind: 'typescript', path: 'x.ts', exportName: 'ledger' },
          config: { callers: 'direct' },
          functions: [fn('pay'), fn('peek', { callers: 'both' })],
        },
      ],
      config,
      SOURCES,
    );
    const callers = Object.fromEntries(specs.flatMap((spec) => spec.functions.map((f) => [`${spec.module}.${f.name}`, f.callers])));
    expect(callers).toEqual({
      'mcp-github.delete_repo': 'direct',
      'mcp-github.list_repos': undefined,
      'mcp-github.own': 'code',
      'mcp-notes.add': 'direct',
      'mcp-other.read': 'code',
      'ledger.pay': 'direct',
      'ledger.peek': 'both',
    });
  });

  it('leaves specs untouched when nothing restricts them', () => {
    const spec = mcp('plain', [fn('a')]);
    expect(
      applyCallers([spec], resolveConfig({ mcpServers: { plain: { url: 'https://example.com' } } }, { root: '/tmp', env: {} }), SOURCES)[0],
    ).toBe(spec);
  });

  it('refuses an unknown value in the config, saying where', () => {
    expect(() => resolveConfig({ callers: 'sometimes' }, { root: '/tmp', env: {} })).toThrow(/callers/);
    expect(() =>
      resolveConfig({ mcpServers: { a: { url: 'https://example.com', callers: { x: 'never' } } } }, { root: '/tmp', env: {} }),
    ).toThrow(/mcpServers\.a\.callers/);
  });
});
