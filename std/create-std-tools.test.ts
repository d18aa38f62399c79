import { describe, expect, it } from 'vitest';
import { isToolDefinition } from '../core/index.js';
import { toolCallErrorOf } from '../test/support/tool-call-error-of.js';
import { createStdTools } from './create-std-tools.js';
import { callTool } from './test-support/call-tool.js';

describe('createStdTools', () => {
  it('returns one described tool per namespace, each function with a description and a returns schema', () => {
    const tools = createStdTools({ root: '.' });
    expect(tools.map((tool) => tool.name)).toEqual(['fs', 'http', 'json', 'csv', 'crypto', 'time']);
    for (const tool of tools) {
      expect(isToolDefinition(tool)).toBe(true);
      for (const [name, definition] of Object.entries(tool.functions)) {
        expect(definition.description, `${tool.name}.${name}`).toMatch(/\w{3,}/);
        expect(definition.returns, `${tool.name}.${name}`).toBeDefined();
      }
    }
  });

  it('hands its limits to every tool', async () => {
    const tools = createStdTools({ root: '.', limits: { maxResultBytes: 100, maxInputChars: 50, maxWriteBytesPerRun: 0 } });
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    const [fs, http, json, csv, crypto] = ['fs', 'http', 'json', 'csv', 'crypto'].map((name) => byName[name]!);
    await expect(callTool(fs!, 'readFile', { path: 'x', maxBytes: 101 })).rejects.toThrow(/100/);
    expect((await toolCallErrorOf(callTool(fs!, 'writeFile', { path: 'never-written.txt', content: 'x' }))).message).toContain(
      'per-run write quota is 0 bytes',
    );
    await expect(callTool(http!, 'fetch', { url: 'http://x', maxBytes: 101 })).rejects.toThrow(/100/);
    await expect(callTool(json!, 'parse', { text: ' '.repeat(51) })).rejects.toThrow(/50/);
    expect((await toolCallErrorOf(callTool(json!, 'stringify', { value: 'x'.repeat(100) }))).code).toBe('RESULT_TOO_LARGE');
    expect((await toolCallErrorOf(callTool(csv!, 'parseRows', { text: ','.repeat(40) }))).code).toBe('RESULT_TOO_LARGE');
    await expect(callTool(crypto!, 'hash', { data: 'x'.repeat(51) })).rejects.toThrow(/50/);
  });
});
