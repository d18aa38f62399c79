import { describe, expect, it } from 'vitest';
import { isToolDefinition } from '../core/index.js';
import { createStdTools } from './create-std-tools.js';

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
});
