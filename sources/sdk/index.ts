export { createSdkSource } from './sdk-source.js';
export { secretsOfSdk } from './sdk-secrets.js';
export { schemaOfMembers, schemaOfType } from './type-to-schema.js';
export type { TypeSchema, TypeSchemaOptions } from './type-to-schema.js';
