export { schemaOfMembers, schemaOfType } from './type-to-schema.js';
export type { TypeSchema, TypeSchemaOptions } from './type-to-schema.js';
