import { describe, expect, it } from 'vitest';
import { parseArguments } from './parse-arguments.js';

describe('parseArguments', () => {
  it('reads each of the four functions with defaults', () => {
    expect(parseArguments('search_tools', '{"query":"weather"}')).toEqual({
      tool: 'search_tools',
      query: 'weather',
      detailLevel: 'summary',
      limit: 10,
    });
    expect(parseArguments('call_tool', '{"name":"crm.searchCustomers","arguments":"{\\"query\\":\\"a\\"}"}')).toEqual({
      tool: 'call_tool',
      name: 'crm.searchCustomers',
      arguments: { query: 'a' },
    });
    expect(parseArguments('run_code', '{"code":"export default 1"}')).toEqual({ tool: 'run_code', code: 'export default 1' });
    expect(parseArguments('finish', '{"summary":"done","result":{"n":1}}')).toEqual({ tool: 'finish', summary: 'done', result: { n: 1 } });
  });

  it('turns malformed calls into messages for the model', () => {
    expect(parseArguments('call_tool', '{"name": "crm.x", ')).toMatchObject({
      tool: 'invalid',
      error: expect.stringMatching(/not valid JSON/),
    });
    expect(parseArguments('get_weather', '{}')).toMatchObject({
      tool: 'invalid',
      error: expect.stringMatching(/no function "get_weather"/),
    });
    expect(parseArguments('finish', '{}')).toMatchObject({ tool: 'invalid', error: expect.stringMatching(/summary/) });
    expect(parseArguments('search_tools', '{"query":"x","detail_level":"everything"}')).toMatchObject({ tool: 'invalid' });
    expect(parseArguments('call_tool', '{"name":"nodot"}')).toMatchObject({ tool: 'invalid' });
    expect(parseArguments('run_code', '[1]')).toMatchObject({ tool: 'invalid', error: expect.stringMatching(/JSON object/) });
  });
});
