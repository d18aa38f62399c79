// A plain (not ${VAR}) provider key written in tsagent.json is used to call the model, and never shows
// up anywhere else: not in the served tool results, the server's log lines, or any file the sessions
// leave behind — even when the model repeats it and the endpoint echoes it in an error.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callReply, startScriptedModelServer, type ScriptedModelServer } from '../test/support/scripted-model-server.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { serveAgent, type RunningAgentServer } from './serve-agent.js';

const PLAIN_KEY = 'sk-plain-in-file-7d3c9b1a5e';

describe('serveAgent with a plain provider key in tsagent.json', () => {
  let model: ScriptedModelServer;
  let dir: string;
  let running: RunningAgentServer;
  let client: Client;
  const logs: string[] = [];

  beforeAll(async () => {
    model = await startScriptedModelServer(
      (request) => {
        const task = JSON.stringify(request.messages);
        // An endpoint that echoes the key it was sent in an error, as some gateways do.
        if (task.includes('fail')) return { status: 400, body: { error: { message: `bad request for key ${PLAIN_KEY}` } } };
        // A model that repeats the key in its answer.
        return callReply('finish', { summary: `Done; I used ${PLAIN_KEY}.` });
      },
      { apiKey: PLAIN_KEY },
    );
    dir = await makeTempDir('agent-plain-key');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Keyed',
          version: '1.0.0',
          tools: [
            {
              name: 'ask',
              description: 'Ask',
              parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
              prompt: 'Answer: {q}',
            },
          ],
        },
        settings: { mostRecentModel: 'openai:scripted-model' },
        providers: { openai: { OPENAI_API_KEY: PLAIN_KEY, OPENAI_BASE_URL: model.baseURL } },
      }),
    );
    running = await serveAgent(dir, { http: { port: 0 }, outDir: path.join(dir, 'out'), env: {}, log: (line) => logs.push(line) });
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url ?? '')));
  });
  afterAll(async () => {
    await client?.close();
    await running?.close();
    await model?.close();
  });

  it('calls the model with the key but never logs, returns or writes it', async () => {
    const ok = (await client.callTool({ name: 'ask', arguments: { q: 'hello' } })) as CallToolResult;
    const failed = (await client.callTool({ name: 'ask', arguments: { q: 'fail please' } })) as CallToolResult;
    expect(ok.isError).toBeFalsy();
    expect(JSON.stringify(ok.content)).toContain('Done; I used [REDACTED: model API key].');
    expect(failed.isError).toBe(true);
    // The key did reach the endpoint, as the Authorization header the server required.
    expect(model.chatRequests().length).toBeGreaterThanOrEqual(2);

    const files = (await readdir(path.join(dir, 'out'), { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    expect(files.some((entry) => entry.name === 'trace.jsonl')).toBe(true);
    const written = await Promise.all(files.map((entry) => readFile(path.join(entry.parentPath, entry.name), 'utf8')));
    for (const text of [JSON.stringify(ok), JSON.stringify(failed), ...logs, ...written]) expect(text).not.toContain(PLAIN_KEY);
  });
});

describe('serveAgent without a model', () => {
  it('says at startup that calls will fail and what to set, instead of only when the first call comes', async () => {
    const dir = await makeTempDir('agent-no-model');
    await writeFile(
      path.join(dir, 'tsagent.json'),
      JSON.stringify({
        metadata: {
          name: 'Keyless',
          tools: [{ name: 'ask', description: 'Ask', parameters: { type: 'object', properties: {} }, prompt: 'Hi' }],
        },
      }),
    );
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.AGENT_SPACES_BASE_URL };
    delete process.env.OPENAI_API_KEY;
    delete process.env.AGENT_SPACES_BASE_URL;
    const lines: string[] = [];
    try {
      const server = await serveAgent(dir, { http: { port: 0 }, outDir: path.join(dir, 'out'), log: (line) => lines.push(line) });
      await server.close();
    } finally {
      if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.AGENT_SPACES_BASE_URL = saved.url;
    }
    expect(lines).toContainEqual(
      expect.stringMatching(/^warning: agent "Keyless" has no model to answer with: no API key .* set OPENAI_API_KEY/),
    );
  });
});
