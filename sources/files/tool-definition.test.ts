import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CompileError, defineTool, type ToolDefinition } from '../../core/index.js';
import { toolDefinitionToRaw } from './tool-definition.js';

const SOURCE = { kind: 'typescript', path: 'capabilities/crm.ts', exportName: 'crm' } as const;
const handler = () => null;

function failure(definition: ToolDefinition): string {
  try {
    toolDefinitionToRaw(definition, SOURCE);
  } catch (error) {
    if (error instanceof CompileError) {
      expect(error.code).toBe('INVALID_TOOL_DEFINITION');
      return error.message;
    }
    throw error;
  }
  throw new Error('the definition was accepted');
}

describe('toolDefinitionToRaw — option objects are checked', () => {
  it('names a misplaced approval flag (TypeScript lets extra keys through the generic defineTool)', () => {
    const crm = defineTool({ name: 'crm', functions: { deleteCustomer: { config: { requiresApproval: true }, handler } } });
    expect(failure(crm)).toBe(
      'capabilities/crm.ts#crm: functions.deleteCustomer.config.requiresApproval is not a function key; requiresApproval goes on the function itself (functions.deleteCustomer.requiresApproval) or on the config of defineTool()',
    );
  });

  it('suggests the key a typo means, and says where capability-wide keys go', () => {
    const crm = defineTool({
      name: 'crm',
      requiresApproval: true,
      functions: { drop: { requiresAproval: true, handler } },
      config: { rateLimit: { requests: 1, period: 'minute', burst: 2 } },
    });
    expect(failure(crm).split('\n')).toEqual([
      'capabilities/crm.ts#crm:',
      '  - requiresApproval is not a top-level key; requiresApproval goes in config (config.requiresApproval) to cover every function, or on one function (functions.<name>.requiresApproval)',
      '  - functions.drop.requiresAproval is not a function key; did you mean functions.drop.requiresApproval? (function keys: description, parameters, returns, requiresApproval, approvalMessage, callers, handler)',
      '  - config.rateLimit.burst is not a rateLimit key (rateLimit keys: requests, period, onLimit, maxWaitMs, maxQueue)',
    ]);
  });

  it('refuses an approval flag that is not a boolean and a function without a handler', () => {
    const crm = defineTool({
      name: 'crm',
      functions: { drop: { requiresApproval: 'yes' as unknown as boolean } as never },
      config: { requiresApproval: 1 as unknown as boolean },
    });
    expect(failure(crm).split('\n').slice(1)).toEqual([
      '  - functions.drop.requiresApproval must be true or false',
      '  - functions.drop.handler must be a function (the code that performs the call)',
      '  - config.requiresApproval must be true or false',
    ]);
  });

  it("refuses the seed's schema-per-parameter shorthand with the JSON Schema to write instead", () => {
    const trains = defineTool({
      name: 'trainSchedule',
      functions: {
        getSchedule: {
          parameters: {
            station: { type: 'string', optional: true },
            date: { type: 'string', format: 'date', optional: true },
            limit: { type: 'integer' },
          } as never,
          handler,
        },
        getTrainDetails: { parameters: { trainId: { type: 'string', required: true } } as never, handler },
      },
    });
    expect(failure(trains).split('\n')).toEqual([
      'capabilities/crm.ts#trainSchedule:',
      `  - functions.getSchedule.parameters holds one schema per parameter (the seed's shorthand), which is not JSON Schema: write parameters: {"type":"object","properties":{"station":{"type":"string"},"date":{"type":"string","format":"date"},"limit":{"type":"integer"}},"required":["limit"]} (or a z.object)`,
      `  - functions.getTrainDetails.parameters holds one schema per parameter (the seed's shorthand), which is not JSON Schema: write parameters: {"type":"object","properties":{"trainId":{"type":"string"}},"required":["trainId"]} (or a z.object)`,
    ]);
  });

  it('takes JSON Schema objects whose properties could look like parameters as JSON Schema', () => {
    const ok = defineTool({
      name: 'ok',
      functions: {
        typed: { parameters: { type: 'object', properties: { station: { type: 'string' } } }, handler },
        untyped: { parameters: { properties: { station: { type: 'string' } } }, handler },
        anything: { parameters: { type: 'object', additionalProperties: { type: 'string' } }, handler },
      },
    });
    expect(toolDefinitionToRaw(ok, SOURCE).functions.map((fn) => fn.toolName)).toEqual(['typed', 'untyped', 'anything']);
  });

  it('accepts a well-formed definition, zod schemas included', () => {
    const crm = defineTool({
      name: 'crm',
      version: '1.0.0',
      config: { requiresApproval: false, rateLimit: { requests: 5, period: 'second' } },
      functions: {
        drop: {
          description: 'Drop',
          parameters: z.object({ id: z.string() }),
          returns: { properties: { ok: { type: 'boolean' } } },
          requiresApproval: true,
          approvalMessage: 'Drop {id}?',
          handler,
        },
      },
    });
    const raw = toolDefinitionToRaw(crm, SOURCE);
    expect(raw.functions[0]).toMatchObject({
      toolName: 'drop',
      requiresApproval: true,
      outputSchema: { properties: { ok: { type: 'boolean' } } },
    });
  });
});
