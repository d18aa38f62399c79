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
      'createMcpBackend',
      'createStdTools',
      'serveSpace',
      'redact',
      'fillPromptTemplate',
      'defaultSources',
      'createFilesSource',
      'createStdSource',
      'createMcpSource',
      'createAgentSource',
    ];
    for (const name of functions) expect(typeof (api as Record<string, unknown>)[name], name).toBe('function');
    expect('default' in api).toBe(false);
    expect(new api.ToolCallError('APPROVAL_DENIED', 'no', { capability: 'crm', function: 'createTicket' })).toBeInstanceOf(
      api.AgentSpacesError,
    );
  });
});
