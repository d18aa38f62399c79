import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { callReply, startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';

describe('startScriptedModelServer', () => {
  let server: ScriptedModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answers the real openai client from a script, with usage and cached tokens, and records requests', async () => {
    server = await startScriptedModelServer([
      callReply('search_tools', { query: 'weather' }, { prompt_tokens: 500, completion_tokens: 20, cached_tokens: 300 }),
      { content: 'hello' },
    ]);
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    const first = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' ? call.function : undefined).toEqual({ name: 'search_tools', arguments: '{"query":"weather"}' });
    expect(first.usage).toMatchObject({ prompt_tokens: 500, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 300 } });
    const second = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'again' }] });
    expect(second.choices[0]?.message.content).toBe('hello');
    expect(server.chatRequests().map((body) => body.messages[0]?.content)).toEqual(['hi', 'again']);
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toThrow(/no reply number 3/);
  });

  it('lists models, checks the key when asked to, and sends malformed arguments as they are', async () => {
    server = await startScriptedModelServer((request) => callReply('run_code', request.model === 'bad' ? '{not json' : {}), {
      apiKey: 'secret-key',
      models: ['a', 'b'],
    });
    const wrong = new OpenAI({ baseURL: server.baseURL, apiKey: 'nope', maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toMatchObject({ status: 401 });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'secret-key', maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['a', 'b']);
    const reply = await client.chat.completions.create({ model: 'bad', messages: [{ role: 'user', content: 'x' }] });
    const call = reply.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' ? call.function.arguments : undefined).toBe('{not json');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'GET /v1/models', 'POST /v1/chat/completions']);
  });

  it('returns scripted HTTP errors', async () => {
    server = await startScriptedModelServer([{ status: 400, body: { error: { message: 'context too long' } } }]);
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    await expect(client.chat.completions.create({ model: 'm', messages: [] })).rejects.toMatchObject({ status: 400 });
  });
});
