import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createAgentDirectory } from './agent-directory.js';
import { MEMORY_LIMIT, createOrchestrationTools } from './orchestration-tools.js';
import { createSessionStore } from './session-store.js';

describe('createSessionStore', () => {
  it('serialises concurrent updates of one session and leaves only whole files', async () => {
    const dir = await makeTempDir('sessions');
    const store = createSessionStore(dir);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.update('s1', 'a', (session) => void session.messages.push({ role: 'user', content: `m${i}`, timestamp: '' })),
      ),
    );
    const session = await createSessionStore(dir).get('s1');
    expect(session?.messages.map((m) => m.content).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`).sort());
    expect(await readdir(dir)).toEqual(['s1.json']);
  });

  it('ignores a temporary file left by a crash and refuses ids that are not file names', async () => {
    const dir = await makeTempDir('sessions');
    const store = createSessionStore(dir);
    await store.update('s2', 'a', (session) => void session.messages.push({ role: 'user', content: 'kept', timestamp: '' }));
    await writeFile(path.join(dir, 's2.json.123.abcd1234.tmp'), '{"half": ');
    expect((await store.get('s2'))?.messages[0]?.content).toBe('kept');
    await expect(store.get('../x')).rejects.toThrow('session id "../x" is not valid');
    expect(await store.get('missing')).toBeUndefined();
  });
});

describe('get_agent_memory', () => {
  it(`returns the last ${MEMORY_LIMIT} messages`, async () => {
    const dir = await makeTempDir('sessions');
    const store = createSessionStore(dir);
    await store.update('long', 'a', (session) => {
      for (let i = 0; i < 60; i++) session.messages.push({ role: i % 2 ? 'assistant' : 'user', content: `m${i}`, timestamp: '' });
    });
    const tools = createOrchestrationTools(createAgentDirectory([]), store);
    const memory = await tools.getAgentMemory({ session_id: 'long' });
    expect(memory.status === 'success' && memory.logs.map((l) => l.content)).toEqual(Array.from({ length: 50 }, (_, i) => `m${i + 10}`));
    expect(await tools.listAgents()).toEqual({ status: 'success', agents: [], count: 0 });
  });
});
