export { openapiSource } from './openapi-source.js';
export { createOpenApiBackend, DEFAULT_OPENAPI_MAX_RESPONSE_BYTES, DEFAULT_OPENAPI_TIMEOUT_MS } from './openapi-backend.js';
export type { OpenApiBackendOptions } from './openapi-backend.js';
export { discoverApi, openApiModuleName, openApiSpecFiles } from './discover-api.js';
export { loadSpec, MAX_SPEC_BYTES } from './load-spec.js';
export type { LoadedSpec } from './load-spec.js';
export { PLAN_KEYWORD, readPlan } from './call-plan.js';
export type { CallPlan, PlannedParameter } from './call-plan.js';
