import { describe, expect, it } from 'vitest';
import * as api from '../index.js';

describe('public API', () => {
  it('exports the documented entry points, all named', () => {
    const functions = [
      'openSpace',
      'loadAgent',
      'serveAgent',
      'executeTask',
      'defineTool',
      'defineFunction',
      'defineConfig',
      'loadConfig',
      'createSpace',
      'searchTools',
      'buildCapabilities',
      'createSandbox',
      'runCode',
      'createTypeChecker',
      'createBridge',
      'createInProcessBackend',
      'createStdTools',
      'serveSpace',
      'redact',
      'fillPromptTemplate',
      'defaultSources',
      'createFilesSource',
      'createStdSource',
      'createMcpSource',
      'createOpenApiSource',
      'createAgentSource',
      'openStore',
    ];
    for (const name of functions) expect(typeof (api as Record<string, unknown>)[name], name).toBe('function');
    expect('default' in api).toBe(false);
    // The MCP client is an internal of the MCP source (createMcpSource), not part of the package root.
    for (const internal of ['createMcpBackend', 'connectMcpServer', 'listAllTools']) expect(internal in api, internal).toBe(false);
    expect(new api.ToolCallError('APPROVAL_DENIED', 'no', { capability: 'crm', function: 'createTicket' })).toBeInstanceOf(
      api.AgentSpacesError,
    );
  });
});
