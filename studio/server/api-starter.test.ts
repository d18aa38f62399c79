import { describe, expect, it } from 'vitest';
import type { CapabilitySpec, FunctionSpec } from '../../core/index.js';
import { sampleValue, starterCode } from './api-starter.js';

const fn = (name: string, inputSchema: Record<string, unknown>, description = ''): FunctionSpec =>
  ({ name, toolName: name, description, inputSchema, resultKind: 'json' }) as unknown as FunctionSpec;
const spec = (module: string, namespace: string, functions: FunctionSpec[]): CapabilitySpec =>
  ({ module, namespace, source: { kind: 'json', path: `tools/${module}.json` }, config: {}, functions }) as unknown as CapabilitySpec;

describe('sampleValue', () => {
  it('fills required properties only, from defaults, examples, enums, consts and formats', () => {
    const schema = {
      type: 'object',
      properties: {
        city: { type: 'string', minLength: 12 },
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        days: { type: 'integer', minimum: 3 },
        when: { type: 'string', format: 'date' },
        mode: { const: 'fast' },
        limit: { type: 'number', default: 10 },
        tag: { type: 'string', examples: ['urgent'] },
        optional: { type: 'string' },
      },
      required: ['city', 'unit', 'days', 'when', 'mode', 'limit', 'tag'],
    };
    expect(sampleValue(schema, schema, 0)).toEqual({
      city: 'examplexxxxx',
      unit: 'celsius',
      days: 3,
      when: '2026-01-01',
      mode: 'fast',
      limit: 10,
      tag: 'urgent',
    });
  });

  it('follows local $refs, takes the first non-null variant, honours minItems and stops at a recursive $ref', () => {
    const schema = {
      type: 'object',
      $defs: {
        address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] },
      },
      properties: {
        from: { $ref: '#/$defs/address' },
        parcels: { type: 'array', minItems: 2, items: { type: 'object', properties: { kg: { type: 'number' } }, required: ['kg'] } },
        payment: { oneOf: [{ type: 'null' }, { type: 'boolean' }] },
        chain: { $ref: '#/$defs/node' },
      },
      required: ['from', 'parcels', 'payment', 'chain'],
    };
    const value = sampleValue(schema, schema, 0) as Record<string, unknown>;
    expect(value.from).toEqual({ city: 'example' });
    expect(value.parcels).toEqual([{ kg: 1 }, { kg: 1 }]);
    expect(value.payment).toBe(false);
    expect(JSON.stringify(value.chain)).toMatch(/null/); // cut off, not an endless recursion
  });
});

describe('starterCode', () => {
  it('imports the namespace and calls the function with its sample, as TypeScript', () => {
    const code = starterCode(
      spec('notebook', 'notebook', [
        fn(
          'addNote',
          { type: 'object', properties: { title: { type: 'string' }, 'x-y': { type: 'string' } }, required: ['title', 'x-y'] },
          'Add a note\nmore',
        ),
      ]),
      fn(
        'addNote',
        { type: 'object', properties: { title: { type: 'string' }, 'x-y': { type: 'string' } }, required: ['title', 'x-y'] },
        'Add a note\nmore',
      ),
    );
    expect(code).toContain("import { notebook } from '@capabilities/notebook';");
    expect(code).toContain('// notebook.addNote: Add a note\n');
    expect(code).toContain("const result = await notebook.addNote({ title: 'example', 'x-y': 'example' });");
    expect(code).toContain('export default result;');
  });

  it("imports the function itself when a function has the namespace's name", () => {
    const getWeather = fn('getWeather', { type: 'object', properties: {} });
    const code = starterCode(spec('get-weather', 'getWeather', [getWeather]), getWeather);
    expect(code).toContain("import { getWeather } from '@capabilities/get-weather';");
    expect(code).toContain('const result = await getWeather({});');
  });

  it('writes strings with quotes and newlines as valid literals', () => {
    const say = fn('say', { type: 'object', properties: { text: { type: 'string', default: 'it\'s\n"quoted"' } }, required: ['text'] });
    const code = starterCode(spec('talk', 'talk', [say]), say);
    const call = /talk\.say\((.*)\);/.exec(code)?.[1] ?? '';
    expect(call).toBe(`{ text: 'it\\'s\\n"quoted"' }`);
  });
});
