/**
 * The seed's discriminated JSON Schema types for Tools-mode agent tool parameters, with the zod schema
 * that validates them (so an invalid schema is reported with its path, e.g.
 * `metadata.tools.0.parameters.properties.x.type`).
 */
import { z } from 'zod';

interface SchemaBase {
  title?: string;
  description?: string;
}

export interface StringSchema extends SchemaBase {
  type: 'string';
  enum?: string[];
  default?: string;
  examples?: string[];
  minLength?: number;
  maxLength?: number;
}

export interface NumericSchema extends SchemaBase {
  type: 'number' | 'integer';
  enum?: number[];
  default?: number;
  examples?: number[];
  minimum?: number;
  maximum?: number;
}

export interface BooleanSchema extends SchemaBase {
  type: 'boolean';
  default?: boolean;
}

export interface ArraySchema extends SchemaBase {
  type: 'array';
  items: JsonSchemaDefinition | JsonSchemaDefinition[];
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

export interface ObjectSchema extends SchemaBase {
  type: 'object';
  properties?: Record<string, JsonSchemaDefinition>;
  required?: string[];
  additionalProperties?: boolean | JsonSchemaDefinition;
  minProperties?: number;
  maxProperties?: number;
}

export type JsonSchemaDefinition = StringSchema | NumericSchema | BooleanSchema | ArraySchema | ObjectSchema;

/** The root of a tool's parameters: always an object schema. */
export type ToolInputSchema = ObjectSchema;

const base = { title: z.string().optional(), description: z.string().optional() };
const count = z.number().int().nonnegative().optional();

const stringSchema = z.looseObject({
  ...base,
  type: z.literal('string'),
  enum: z.array(z.string()).optional(),
  default: z.string().optional(),
  examples: z.array(z.string()).optional(),
  minLength: count,
  maxLength: count,
});

const numericSchema = z.looseObject({
  ...base,
  type: z.enum(['number', 'integer']),
  enum: z.array(z.number()).optional(),
  default: z.number().optional(),
  examples: z.array(z.number()).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
});

const booleanSchema = z.looseObject({ ...base, type: z.literal('boolean'), default: z.boolean().optional() });

const arraySchema: z.ZodType<ArraySchema> = z.looseObject({
  ...base,
  type: z.literal('array'),
  get items() {
    return z.union([jsonSchemaDefinition, z.array(jsonSchemaDefinition)]);
  },
  minItems: count,
  maxItems: count,
  uniqueItems: z.boolean().optional(),
});

export const objectSchema: z.ZodType<ObjectSchema> = z.looseObject({
  ...base,
  type: z.literal('object'),
  get properties() {
    return z.record(z.string(), jsonSchemaDefinition).optional();
  },
  required: z.array(z.string()).optional(),
  get additionalProperties() {
    return z.union([z.boolean(), jsonSchemaDefinition]).optional();
  },
  minProperties: count,
  maxProperties: count,
});

/**
 * One schema, chosen by its `type`. Other JSON Schema keywords (`format`, `pattern`, …) pass through
 * untouched to the MCP `inputSchema`; the ones the seed names are checked.
 */
export const jsonSchemaDefinition: z.ZodType<JsonSchemaDefinition> = z.lazy(() =>
  z.discriminatedUnion('type', [stringSchema, numericSchema, booleanSchema, arraySchema as never, objectSchema as never]),
) as z.ZodType<JsonSchemaDefinition>;
