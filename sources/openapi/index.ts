export { createOpenApiSource, openapiSource } from './openapi-source.js';
export { discoverApi, openApiSpecFiles } from './discover-api.js';
