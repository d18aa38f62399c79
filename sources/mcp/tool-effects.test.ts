import { describe, expect, it } from 'vitest';
import { toolEffects } from './tool-effects.js';

const server = { command: 'node' };

describe('toolEffects', () => {
  it('follows the config first, then the annotations, else says nothing', () => {
    expect(toolEffects({ ...server, sideEffects: true }, 'list', { readOnlyHint: true })).toBe('side-effects');
    expect(toolEffects({ ...server, sideEffects: false }, 'drop', { destructiveHint: true })).toBe('read-only');
    expect(toolEffects({ ...server, sideEffects: ['drop'] }, 'drop', undefined)).toBe('side-effects');
    expect(toolEffects({ ...server, sideEffects: ['drop'] }, 'list', undefined)).toBe('read-only');
    expect(toolEffects(server, 'list', { readOnlyHint: true })).toBe('read-only');
    expect(toolEffects(server, 'drop', { destructiveHint: true })).toBe('side-effects');
    expect(toolEffects(server, 'add', { readOnlyHint: false, destructiveHint: false })).toBe('side-effects');
    expect(toolEffects(server, 'any', { title: 'Any' })).toBeUndefined();
    expect(toolEffects(server, 'any', undefined)).toBeUndefined();
  });
});
