import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/index.js';
import { canonicalJson } from '../core/index.js';
import { argumentsHash, createCallCounter } from './call-key.js';
import { describeStore, resolveStoreUrl } from '../store/store-url.js';

describe('call keys', () => {
  it('hash arguments independently of key order, but not of values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
    // Integer-like keys sort as text too (JSON.stringify would put them first, in numeric order).
    expect(canonicalJson({ b: 1, 10: 'x', 2: 'y', u: undefined, list: [undefined, 1] })).toBe('{"10":"x","2":"y","b":1,"list":[null,1]}');
    expect(argumentsHash({ a: 1, b: 2 })).toBe(argumentsHash({ b: 2, a: 1 }));
    expect(argumentsHash({ a: 1 })).not.toBe(argumentsHash({ a: 2 }));
  });

  it('number the calls of a run with the same function and arguments: 1, 2, …', () => {
    const count = createCallCounter();
    expect(count('ledger', 'record', { item: 'x' }).occurrence).toBe(1);
    expect(count('ledger', 'record', { item: 'y' }).occurrence).toBe(1);
    const second = count('ledger', 'record', { item: 'x' });
    expect(second.occurrence).toBe(2);
    expect(second.key).toBe(`ledger.record#${argumentsHash({ item: 'x' })}#2`);
  });
});

describe('the store URL', () => {
  it('comes from the option, else the config, else $AGENT_SPACES_STORE; none means no store', () => {
    const env = { AGENT_SPACES_STORE: 'postgres://env/db' };
    expect(resolveStoreUrl({ option: 'postgres://option/db', config: 'postgres://config/db', env })).toBe('postgres://option/db');
    expect(resolveStoreUrl({ config: 'postgresql://config/db', env })).toBe('postgresql://config/db');
    expect(resolveStoreUrl({ env })).toBe('postgres://env/db');
    expect(resolveStoreUrl({ env: {} })).toBeUndefined();
  });

  it('must be a PostgreSQL URL, and messages never show its password', () => {
    expect(() => resolveStoreUrl({ option: 'mysql://u:hunter2@host/db', env: {} })).toThrow(ConfigError);
    expect(() => resolveStoreUrl({ option: 'mysql://u:hunter2@host/db', env: {} })).not.toThrow(/hunter2/);
    expect(describeStore('postgres://user:hunter2@db.example:5432/spaces')).toBe('postgres://user:***@db.example:5432/spaces');
    expect(describeStore('postgresql://:hunter2@db.example/spaces')).toBe('postgresql://:***@db.example/spaces');
    expect(describeStore('postgres://db.example/spaces?user=u&password=hunter2&sslmode=require')).toBe(
      'postgres://db.example/spaces?user=u&password=***&sslmode=require',
    );
    expect(describeStore('postgres://db.example/spaces?sslpassword=hunter2')).toBe('postgres://db.example/spaces?sslpassword=***');
    expect(describeStore('postgres://db.example:5432/spaces')).toBe('postgres://db.example:5432/spaces');
  });
});
