// BFCL's VehicleControlAPI, TwitterAPI and MessageAPI as one capability, @capabilities/bfcl: the functions, their
// descriptions and parameters are BFCL's own function docs (../data/*.json, ShishirPatil/gorilla,
// Apache-2.0: see ../data/LICENSE), turned into JSON Schema. Handlers call the task's live instances,
// which the eval harness loads before every task.
import { defineFunction, defineTool, suiteEnvironment, type AnyFunctionDefinition } from 'agent-spaces';
import { BFCL_FUNCTIONS, type BfclParameterDoc, type BfclWorld } from '../bfcl-world.js';

const environment = suiteEnvironment<BfclWorld>('bfcl-multi-turn');

const TYPES: Record<string, string> = {
  dict: 'object',
  float: 'number',
  integer: 'integer',
  boolean: 'boolean',
  string: 'string',
  array: 'array',
};

/** A BFCL parameter doc as JSON Schema ("dict" is an object, "float" a number, "any" anything). */
export function jsonSchemaOf(doc: BfclParameterDoc): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  if (doc.type !== 'any') {
    const type = TYPES[doc.type];
    if (!type) throw new Error(`BFCL parameter type "${doc.type}" has no JSON Schema counterpart`);
    schema.type = type;
  }
  if (doc.description) schema.description = doc.description;
  if (doc.default !== undefined) schema.default = doc.default;
  if (doc.items) schema.items = jsonSchemaOf(doc.items);
  if (doc.properties)
    schema.properties = Object.fromEntries(Object.entries(doc.properties).map(([key, inner]) => [key, jsonSchemaOf(inner)]));
  return schema;
}

const functions: Record<string, AnyFunctionDefinition> = Object.fromEntries(
  BFCL_FUNCTIONS.map((fn) => [
    fn.name,
    defineFunction({
      description: fn.description,
      parameters: { ...jsonSchemaOf(fn.parameters), required: fn.parameters.required } as unknown as { type: 'object' },
      handler: (args: Record<string, unknown>) => environment.get().call(fn.name, args),
    }),
  ]),
);

export const bfcl = defineTool({
  name: 'bfcl',
  description:
    "BFCL's multi-turn tools: a car's controls (engine, doors, brakes, climate, navigation, tyres; VehicleControlAPI), a Twitter-like posting API (TwitterAPI) and a workspace messaging API (MessageAPI).",
  functions,
});
