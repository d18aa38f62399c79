import { secretsOfHeaders, secretsOfUrl, type Secret } from '../../core/index.js';
import type { OpenApiConfig } from '../../config/index.js';

/** The secrets of one OpenAPI service: its header values and the credentials its spec and base URLs carry. */
export function secretsOfApi(api: OpenApiConfig): Secret[] {
  return [
    ...secretsOfHeaders(api.headers),
    ...secretsOfUrl(api.spec, 'spec URL'),
    ...(api.baseUrl === undefined ? [] : secretsOfUrl(api.baseUrl, 'base URL')),
  ];
}
