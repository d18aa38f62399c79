import { describe, expect, it } from 'vitest';
import type * as Errors from './errors.js';
import { AgentSpacesError, ToolCallError } from './errors.js';

type ErrorsModule = typeof Errors;
// A query makes Vite load a second instance of the module; TypeScript cannot resolve such a specifier.
const secondCopy = './errors.js?copy';

describe('ToolCallError', () => {
  it('is recognised when thrown by another copy of the package (a tool module loaded from elsewhere)', async () => {
    // A second instance of this very module, as a tool module importing another copy of the package gets.
    const other = (await import(/* @vite-ignore */ secondCopy)) as ErrorsModule;
    expect(other.ToolCallError).not.toBe(ToolCallError);
    const error = new other.ToolCallError('TOOL_ERROR_RESULT', 'not found', { capability: 'shop', function: 'find' });
    expect(error instanceof ToolCallError).toBe(true);
    expect(error.code).toBe('TOOL_ERROR_RESULT');
  });

  it('is not fooled by other errors, and leaves instanceof of other classes alone', () => {
    expect(new Error('x') instanceof ToolCallError).toBe(false);
    expect({ code: 'TOOL_ERROR_RESULT' } instanceof ToolCallError).toBe(false);
    const error = new ToolCallError('TOOL_FAILED', 'x', { capability: 'a', function: 'b' });
    expect(error instanceof AgentSpacesError).toBe(true);
    expect(error instanceof Error).toBe(true);
    expect(new AgentSpacesError('X', 'y') instanceof ToolCallError).toBe(false);
  });
});
