import { describe, expect, it } from 'vitest';
import { closestKey } from '../../core/index.js';
import { checkKeys, joinPath, type KeyLevel } from './check-keys.js';

const LEVEL: KeyLevel = {
  name: 'function',
  keys: ['name', 'parameters', 'requiresApproval'],
  aliases: { inputSchema: 'parameters' },
  elsewhere: { rateLimit: (at) => [{ path: joinPath(at, 'rateLimit'), advice: 'rateLimit goes in config' }] },
};

describe('checkKeys', () => {
  it('accepts the known keys', () => {
    expect(checkKeys({ name: 'a', parameters: {}, requiresApproval: true }, 'functions[0]', LEVEL)).toEqual([]);
  });

  it('says where a misplaced key goes, suggests the key a typo or alias means, and lists the keys otherwise', () => {
    expect(checkKeys({ rateLimit: {}, requiresAproval: true, inputSchema: {}, colour: 'red' }, 'functions[0]', LEVEL)).toEqual([
      'functions[0].rateLimit is not a function key; rateLimit goes in config',
      'functions[0].requiresAproval is not a function key; did you mean functions[0].requiresApproval? (function keys: name, parameters, requiresApproval)',
      'functions[0].inputSchema is not a function key; did you mean functions[0].parameters? (function keys: name, parameters, requiresApproval)',
      'functions[0].colour is not a function key (function keys: name, parameters, requiresApproval)',
    ]);
  });
});

describe('closestKey', () => {
  it.each([
    ['requiresAproval', 'requiresApproval'],
    ['requires_approval', 'requiresApproval'],
    ['RequireApproval', 'requiresApproval'],
    ['paramters', 'parameters'],
    ['nmae', 'name'],
  ])('reads %s as %s', (typo, meant) => {
    expect(closestKey(typo, ['name', 'parameters', 'requiresApproval'])).toBe(meant);
  });

  it('suggests nothing for a key that is not close to any', () => {
    expect(closestKey('colour', ['name', 'parameters', 'requiresApproval'])).toBeUndefined();
    expect(closestKey('id', ['name'])).toBeUndefined();
  });
});

describe('joinPath', () => {
  it('writes indexes in brackets and quotes keys that are not identifiers', () => {
    expect(joinPath('', 'config')).toBe('config');
    expect(joinPath('functions', 1)).toBe('functions[1]');
    expect(joinPath('functions', 'get-sum')).toBe('functions["get-sum"]');
  });
});
