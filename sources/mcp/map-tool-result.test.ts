import { describe, expect, it } from 'vitest';
import { ToolCallError } from '../../core/index.js';
import type { FunctionSpec } from '../../core/index.js';
import { mapToolResult } from './map-tool-result.js';

const target = { capability: 'mcp-weather', function: 'getForecast', server: 'weather', tool: 'get-forecast' };
const structured: FunctionSpec = {
  name: 'getForecast',
  toolName: 'get-forecast',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { high: { type: 'number' } } },
  resultKind: 'mcp-structured',
};
const text: FunctionSpec = { ...structured, outputSchema: undefined, resultKind: 'mcp-text' };

function thrown(run: () => unknown): ToolCallError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolCallError) return error;
    throw error;
  }
  throw new Error('expected a ToolCallError');
}

describe('mapToolResult', () => {
  it('joins only the text blocks of a text tool', () => {
    const result = {
      content: [
        { type: 'text' as const, text: 'line 1' },
        { type: 'image' as const, data: 'AA==', mimeType: 'image/png' },
        { type: 'text' as const, text: 'line 2' },
      ],
    };
    expect(mapToolResult(result, text, 'value', target)).toBe('line 1\nline 2');
    expect(mapToolResult({ content: [] }, text, 'value', target)).toBe('');
  });

  it('prefers structuredContent, and otherwise parses a single JSON text block', () => {
    expect(
      mapToolResult({ content: [{ type: 'text', text: '{"high":1}' }], structuredContent: { high: 20 } }, structured, 'value', target),
    ).toEqual({ high: 20 });
    expect(mapToolResult({ content: [{ type: 'text', text: '{"high":21}' }] }, structured, 'value', target)).toEqual({ high: 21 });
  });

  it('reports a structured tool that returned neither structuredContent nor JSON text', () => {
    const error = thrown(() => mapToolResult({ content: [{ type: 'text', text: 'sunny' }] }, structured, 'value', target));
    expect(error.code).toBe('INVALID_RESULT');
    expect(error.message).toBe(
      'tool "get-forecast" of MCP server "weather" has an output schema but returned no structuredContent (and no single JSON text block); call it with the full result to see what it sent',
    );
    expect(error.capability).toBe('mcp-weather');
    expect(error.function).toBe('getForecast');
  });

  it('rejects isError results with the server text, or says there was none', () => {
    const withText = thrown(() =>
      mapToolResult({ isError: true, content: [{ type: 'text', text: 'city not found' }] }, structured, 'full', target),
    );
    expect([withText.code, withText.message]).toEqual(['TOOL_ERROR_RESULT', 'city not found']);
    const withoutText = thrown(() => mapToolResult({ isError: true, content: [] }, text, 'value', target));
    expect(withoutText.message).toBe('tool "get-forecast" of MCP server "weather" returned an error without text');
  });

  it('returns the whole result in full mode, whatever the result kind', () => {
    const result = { content: [{ type: 'text' as const, text: '{"high":3}' }], structuredContent: { high: 3 } };
    expect(mapToolResult(result, text, 'full', target)).toEqual(result);
    expect(mapToolResult({ content: [] }, structured, 'full', target)).toEqual({ content: [] });
  });
});
