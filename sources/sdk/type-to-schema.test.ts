import { Ajv } from 'ajv';
import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { schemaOfMembers, schemaOfType } from './type-to-schema.js';

const SOURCE = `
/** A labelled issue of a repository. */
export interface Issue {
  /** The issue's number in its repository. */
  number: number;
  title: string;
  state: 'open' | 'closed';
  labels: Label[];
  body?: string | null;
  assignee: User | undefined;
  /** Anything else the tracker keeps. */
  extra: Record<string, number>;
}
export interface Label { name: string; color?: string }
export type User = { login: string; site_admin: boolean };
export enum Priority { Low = 'low', High = 'high' }
export interface Tree { name: string; children: Tree[] }
export type Pair = [string, number];
export interface WithCallback { name: string; onDone?: (value: string) => void; signal?: AbortSignal }
export interface NeedsCallback { name: string; onDone: (value: string) => void }
export class Client { constructor(public token: string) {} get(): string { return this.token; } }
export interface Page<T> { items: T[]; next?: string }

export declare const issue: Issue;
export declare const priority: Priority;
export declare const tree: Tree;
export declare const pair: Pair;
export declare const withCallback: WithCallback;
export declare const needsCallback: NeedsCallback;
export declare const client: Client;
export declare const when: Date;
export declare const stream: ReadableStream<Uint8Array>;
export declare const big: bigint;
export declare const page: Page<Label>;
export declare const maybe: string | number | boolean | null;
export declare function add(a: number, b?: number): number;
`;

// One program for every test: type-checking the lib files is the slow part.
const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true, target: 99, lib: ['lib.esnext.full.d.ts'] } });
const file = project.createSourceFile('/sdk.ts', SOURCE);

function typeOf(name: string) {
  const declaration = file.getVariableDeclarationOrThrow(name);
  return { type: declaration.getType(), node: declaration, file };
}

describe('schemaOfType', () => {
  it('declares named types in $defs with their TSDoc, optional and undefined-admitting properties not required', () => {
    const { type, node } = typeOf('issue');
    const { schema, unsupported } = schemaOfType(type, node);
    expect(unsupported).toBeUndefined();
    expect(schema).toEqual({
      $ref: '#/$defs/Issue',
      $defs: {
        Issue: {
          type: 'object',
          description: 'A labelled issue of a repository.',
          properties: {
            number: { type: 'number', description: "The issue's number in its repository." },
            title: { type: 'string' },
            state: { enum: ['open', 'closed'] },
            labels: { type: 'array', items: { $ref: '#/$defs/Label' } },
            body: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            assignee: { $ref: '#/$defs/User' },
            extra: {
              type: 'object',
              properties: {},
              additionalProperties: { type: 'number' },
              description: 'Anything else the tracker keeps.',
            },
          },
          required: ['number', 'title', 'state', 'labels', 'extra'],
        },
        Label: { type: 'object', properties: { name: { type: 'string' }, color: { type: 'string' } }, required: ['name'] },
        User: {
          type: 'object',
          properties: { login: { type: 'string' }, site_admin: { type: 'boolean' } },
          required: ['login', 'site_admin'],
        },
      },
    });
  });

  it('validates real values with ajv: a good issue passes, a wrong state fails', () => {
    const { type, node } = typeOf('issue');
    const validate = new Ajv({ strict: false }).compile(schemaOfType(type, node).schema);
    const good = {
      number: 1,
      title: 't',
      state: 'open',
      labels: [{ name: 'bug' }],
      assignee: { login: 'a', site_admin: false },
      extra: {},
    };
    expect(validate(good)).toBe(true);
    expect(validate({ ...good, state: 'merged' })).toBe(false);
    expect(validate({ ...good, labels: [{ color: 'red' }] })).toBe(false);
  });

  it('keeps enums named, recursive types as references to themselves, tuples as bounded arrays', () => {
    const priority = typeOf('priority');
    expect(schemaOfType(priority.type, priority.node).schema).toEqual({
      $ref: '#/$defs/Priority',
      $defs: { Priority: { enum: ['low', 'high'] } },
    });
    const tree = typeOf('tree');
    expect(schemaOfType(tree.type, tree.node).schema).toEqual({
      $ref: '#/$defs/Tree',
      $defs: {
        Tree: {
          type: 'object',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Tree' } } },
          required: ['name', 'children'],
        },
      },
    });
    const pair = typeOf('pair');
    expect(schemaOfType(pair.type, pair.node).schema).toEqual({
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      minItems: 2,
      maxItems: 2,
    });
  });

  it('inlines generic instantiations and folds true | false into boolean', () => {
    const page = typeOf('page');
    expect(schemaOfType(page.type, page.node).schema).toEqual({
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/$defs/Label' } }, next: { type: 'string' } },
      required: ['items'],
      $defs: { Label: { type: 'object', properties: { name: { type: 'string' }, color: { type: 'string' } }, required: ['name'] } },
    });
    const maybe = typeOf('maybe');
    expect(schemaOfType(maybe.type, maybe.node).schema).toEqual({
      anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
    });
  });

  it('leaves out optional non-JSON properties with a note, and refuses required ones with where they are', () => {
    const withCallback = typeOf('withCallback');
    const kept = schemaOfType(withCallback.type, withCallback.node);
    expect(kept.unsupported).toBeUndefined();
    expect(kept.omitted).toEqual(['onDone: a function', 'signal: an AbortSignal']);
    expect(kept.schema.$defs).toEqual({ WithCallback: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    const strict = schemaOfType(withCallback.type, withCallback.node, { omitOptionalNonJson: false });
    expect(strict.unsupported).toBe('onDone: a function');
    const needs = typeOf('needsCallback');
    expect(schemaOfType(needs.type, needs.node)).toEqual({ schema: {}, unsupported: 'onDone: a function' });
  });

  it('says why a class instance, a Date, a stream and a bigint are not JSON data', () => {
    const reasons = ['client', 'when', 'stream', 'big'].map((name) => {
      const { type, node } = typeOf(name);
      return schemaOfType(type, node).unsupported;
    });
    expect(reasons).toEqual(['an instance of class Client', 'a Date (pass an ISO string instead)', 'a stream', 'a bigint']);
  });

  it('refuses a type with more named types than allowed', () => {
    const { type, node } = typeOf('issue');
    expect(schemaOfType(type, node, { maxDefinitions: 2 }).unsupported).toBe('more than 2 named types: too large to declare');
  });
});

describe('schemaOfMembers', () => {
  it("makes one object schema of a function's parameters", () => {
    const { file } = typeOf('issue');
    const add = file.getFunctionOrThrow('add');
    const members = add.getParameters().map((parameter) => ({
      name: parameter.getName(),
      type: parameter.getType(),
      optional: parameter.isOptional(),
    }));
    expect(schemaOfMembers(members, add).schema).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a'],
    });
  });
});
