import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/support/temp-dir.js';
import { agentInstructions } from './agent-instructions.js';
import { AgentError } from './agent-error.js';
import { checkAgentFile, loadAgent } from './load-agent.js';
import { resolveAgentModel } from './resolve-agent-model.js';

const SEED = new URL('./__fixtures__/seed-agent', import.meta.url).pathname;

async function agentDir(file: unknown, extra: Record<string, string> = {}): Promise<string> {
  const dir = await makeTempDir('agent');
  await writeFile(path.join(dir, 'tsagent.json'), typeof file === 'string' ? file : JSON.stringify(file, null, 2));
  for (const [name, text] of Object.entries(extra)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

async function loadError(dir: string): Promise<AgentError> {
  const error = await loadAgent(dir).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AgentError);
  return error as AgentError;
}

const tool = (overrides: Record<string, unknown> = {}) => ({
  name: 'echo',
  description: 'Echo',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  prompt: 'Say {text}',
  ...overrides,
});

describe('loadAgent', () => {
  it("loads the seed's example agent", async () => {
    const agent = await loadAgent(SEED);
    expect(agent).toMatchObject({
      name: 'xxxx',
      description: 'xxxxxx',
      version: '1.0.0',
      mode: 'tools',
      prompt: 'You are a helpful assistant that books travel.',
    });
    expect(agent.settings).toMatchObject({
      maxChatTurns: 10,
      maxOutputTokens: 1000,
      temperature: 0.5,
      topP: 0.5,
      maxTurns: 25,
      mostRecentModel: 'gemini:gemini-2.0-flash',
    });
    expect(agent.tools.map((t) => t.name)).toEqual(['book_flight']);
    expect(Object.keys(agent.mcpServers)).toEqual(['filesystem', 'weather']);
    expect(agent.mcpServers.filesystem).toMatchObject({ command: 'npx', cwd: SEED });
    expect(agent.rules.map((r) => [r.name, r.priorityLevel, r.include])).toEqual([
      ['Drafts', 50, 'manual'],
      ['Be brief', 100, 'always'],
    ]);
    expect(agent.references.map((r) => r.text)).toEqual(['Prefer carriers with free rebooking.']);
    expect(Object.keys(agent.providers)).toEqual(['anthropic', 'gemini', 'openai', 'bedrock', 'ollama']);
  });

  it('keeps provider keys out of JSON and inspection', async () => {
    const agent = await loadAgent(SEED);
    // The seed's description is "xxxxxx", so look for the providers themselves.
    expect(JSON.stringify(agent)).not.toContain('GOOGLE_API_KEY');
    expect(inspect(agent, { depth: 10 })).not.toContain('GOOGLE_API_KEY');
    expect(JSON.stringify({ ...agent })).not.toContain('BEDROCK_SECRET_ACCESS_KEY');
  });

  it('builds headless instructions from prompt, always-included rules and references', async () => {
    const text = agentInstructions(await loadAgent(SEED));
    expect(text).toContain('You are a helpful assistant that books travel.');
    expect(text).toContain('### Be brief\n\nAnswer in at most three sentences.');
    expect(text).toContain('### Airlines\n\nPrefer carriers with free rebooking.');
    expect(text).not.toContain('write a draft first');
  });

  it('tells the modes apart', async () => {
    expect((await loadAgent(await agentDir({ metadata: { name: 'a' } }))).mode).toBe('interactive');
    expect((await loadAgent(await agentDir({ metadata: { name: 'a', skills: [{ id: 's', name: 'S', description: 'd' }] } }))).mode).toBe(
      'autonomous',
    );
    expect((await loadAgent(await agentDir({ metadata: { name: 'a', tools: [] } }))).mode).toBe('tools');
  });

  it('lists every problem with its path', async () => {
    const dir = await agentDir(
      {
        metadata: {
          name: '',
          tools: [
            tool({
              parameters: { type: 'object', properties: { x: { type: 'strin' }, n: { type: 'integer', minimum: 'low' } }, required: ['y'] },
            }),
            tool({ prompt: 'Say {text} to {someone}' }),
            tool({ name: 'bad name!' }),
          ],
        },
        settings: { maxTurns: 'many' },
        providers: { openai: { OPENAI_API_KEY: 918273645 } },
      },
      { 'rules/broken.mdt': '---\npriorityLevel: high\n---\ntext' },
    );
    const error = await loadError(dir);
    expect(error.code).toBe('AGENT_INVALID');
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'tsagent.json: metadata.name',
        'tsagent.json: metadata.tools.0.parameters.properties.x.type',
        'tsagent.json: metadata.tools.0.parameters.properties.n.minimum',
        'tsagent.json: metadata.tools.2.name',
        'tsagent.json: settings.maxTurns',
        'tsagent.json: providers.openai.OPENAI_API_KEY',
        'rules/broken.mdt: priorityLevel',
      ]),
    );
    expect(error.message).toContain('tsagent.json: metadata.tools.0.parameters.properties.x.type');
    // The key's value is never quoted (the message names the folder, whose random name may hold any digits).
    expect(error.message.replaceAll(dir, '<agent>')).not.toContain('918273645');
  });

  it('reports template, required and duplicate problems once the file parses', async () => {
    const dir = await agentDir({
      metadata: {
        name: 'a',
        tools: [
          tool({ prompt: 'Say {text} to {someone}' }),
          tool({ parameters: { type: 'object', properties: {}, required: ['text'] }, prompt: 'hi' }),
        ],
      },
    });
    const error = await loadError(dir);
    expect(error.issues).toEqual([
      {
        path: 'tsagent.json: metadata.tools.0.prompt',
        message: expect.stringContaining('tool "echo": placeholder {someone} names no parameter'),
      },
      { path: 'tsagent.json: metadata.tools.1.name', message: expect.stringContaining('defined twice') },
      { path: 'tsagent.json: metadata.tools.1.parameters.required.0', message: '"text" is required but not in parameters.properties' },
    ]);
  });

  it('expands ${VAR} in mcpServers and reports unset variables by path, never values', async () => {
    const dir = await agentDir({ metadata: { name: 'a' }, mcpServers: { s: { command: 'node', env: { TOKEN: '${AGENT_TEST_TOKEN}' } } } });
    const agent = await loadAgent(dir, { env: { AGENT_TEST_TOKEN: 'secret-value' } });
    expect(agent.mcpServers.s).toMatchObject({ env: { TOKEN: 'secret-value' } });
    const error = (await loadAgent(dir, { env: {} }).catch((e: unknown) => e)) as AgentError;
    expect(error.issues).toEqual([
      { path: 'tsagent.json: mcpServers.s.env.TOKEN', message: expect.stringContaining('AGENT_TEST_TOKEN is not set') },
    ]);
  });

  it('says when there is no agent or the JSON is broken', async () => {
    expect((await loadError(path.join(SEED, 'nowhere'))).code).toBe('AGENT_NOT_FOUND');
    const broken = await loadError(await agentDir('{ "metadata": '));
    expect(broken.issues[0]?.path).toBe('tsagent.json');
  });
});

describe('resolveAgentModel', () => {
  it('uses the provider of mostRecentModel and expands only its keys', async () => {
    const dir = await makeTempDir('agent-model');
    await cp(SEED, dir, { recursive: true });
    const file = JSON.parse(await readFile(path.join(dir, 'tsagent.json'), 'utf8')) as {
      settings: Record<string, string>;
      providers: Record<string, Record<string, string>>;
    };
    file.settings.mostRecentModel = 'openai:gpt-test';
    file.providers.openai = { OPENAI_API_KEY: '${AGENT_TEST_KEY}', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    file.providers.anthropic = { ANTHROPIC_API_KEY: '${UNSET_BUT_UNUSED}' };
    await writeFile(path.join(dir, 'tsagent.json'), JSON.stringify(file));
    const agent = await loadAgent(dir);
    expect(resolveAgentModel(agent, { model: 'fallback', apiKey: 'fallback-key' }, { AGENT_TEST_KEY: 'k-123456' })).toEqual({
      model: 'gpt-test',
      apiKey: 'k-123456',
      baseURL: 'http://127.0.0.1:9/v1',
    });
    let error: AgentError | undefined;
    try {
      resolveAgentModel(agent, {}, {});
    } catch (e) {
      error = e as AgentError;
    }
    expect(error?.message).toContain('tsagent.json: providers.openai.OPENAI_API_KEY: environment variable AGENT_TEST_KEY is not set');
  });

  it("maps the seed's gemini provider to its OpenAI-compatible endpoint without showing the key", async () => {
    const agent = await loadAgent(SEED);
    const model = resolveAgentModel(agent, {}, {});
    expect(model).toEqual({
      model: 'gemini-2.0-flash',
      apiKey: 'xxxxx',
      baseURL: 'https://generativelanguage.googleapis.com/v1beta/openai/',
    });
  });
});

describe('checkAgentFile', () => {
  const tool = {
    name: 'greet',
    description: 'Greets',
    parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
    prompt: 'Greet {who}',
  };

  it('finds nothing in data that loads', () => {
    expect(checkAgentFile({ metadata: { name: 'A', tools: [tool] } })).toEqual([]);
  });

  it("reports the loader's problems with their paths: unknown placeholders, duplicates, schema errors", () => {
    const issues = checkAgentFile({ metadata: { name: 'A', tools: [{ ...tool, prompt: 'Greet {whom}' }] } });
    expect(issues.map((issue) => issue.path)).toEqual(['tsagent.json: metadata.tools.0.prompt']);
    expect(issues[0]?.message).toContain('{whom} names no parameter');
    expect(checkAgentFile({ metadata: { name: 'A', tools: [tool, tool] } }).map((issue) => issue.path)).toEqual([
      'tsagent.json: metadata.tools.1.name',
    ]);
    expect(
      checkAgentFile({
        metadata: { name: 'A', tools: [{ ...tool, parameters: { type: 'object', properties: { who: { type: 'text' } } } }] },
      })[0]?.path,
    ).toMatch(/metadata\.tools\.0\.parameters\.properties\.who/);
  });
});
