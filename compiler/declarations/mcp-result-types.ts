/** Type names declared by {@link MCP_RESULT_DECLARATIONS}; no other type of the module may take them. */
export const MCP_RESULT_TYPE_NAMES = [
  'McpCallResult',
  'McpContentBlock',
  'McpTextContent',
  'McpImageContent',
  'McpAudioContent',
  'McpResourceLink',
  'McpEmbeddedResource',
  'McpContentAnnotations',
] as const;

/**
 * The whole result of an MCP tool call (protocol 2025-11-25), declared in every module that has a
 * function returning text (`resultKind: 'mcp-text'`), for its `.full()` method.
 */
export const MCP_RESULT_DECLARATIONS = `/** The whole result of an MCP tool call, as returned by \`.full()\`. */
export interface McpCallResult {
  /** Every content block the tool returned, in order. */
  content: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
export type McpContentBlock = McpTextContent | McpImageContent | McpAudioContent | McpResourceLink | McpEmbeddedResource;
export interface McpContentAnnotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}
export interface McpTextContent {
  type: 'text';
  text: string;
  annotations?: McpContentAnnotations;
}
export interface McpImageContent {
  type: 'image';
  /** Base64-encoded image data. */
  data: string;
  mimeType: string;
  annotations?: McpContentAnnotations;
}
export interface McpAudioContent {
  type: 'audio';
  /** Base64-encoded audio data. */
  data: string;
  mimeType: string;
  annotations?: McpContentAnnotations;
}
/** A link to a resource the client may read; its content is not included. */
export interface McpResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: McpContentAnnotations;
}
/** A resource embedded in the result: \`text\` for text resources, base64 \`blob\` for binary ones. */
export interface McpEmbeddedResource {
  type: 'resource';
  resource: { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };
  annotations?: McpContentAnnotations;
}
`;
