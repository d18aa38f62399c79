// search_tools with detail_level "full" over the published memory server, in both places a model meets
// it: the planner (through the real openai client against a scripted model) and `serve` (a real MCP
// client). Both answer with the same whole declaration, taken from the build's index.d.ts.
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScriptedTask, toolAnswer } from '../../planner/test-support/run-scripted-task.js';
import { createAgentSpacesMcpServer } from '../../server/create-mcp-server.js';
import { createRunRouter } from '../../server/run-router.js';
import { createSpace, type Space } from '../../space/index.js';
import { callReply } from '../support/scripted-model-server.js';
import { makeTempDir } from '../support/temp-dir.js';

const require = createRequire(import.meta.url);
const memoryServer = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')), 'dist', 'index.js');

const CREATE_ENTITIES = `// import { createEntities } from '@capabilities/mcp-memory';
export interface CreateEntitiesParams {
  entities: {
    /** The name of the entity */
    name: string;
    /** The type of the entity */
    entityType: string;
    /** An array of observation contents associated with the entity */
    observations: string[];
  }[];
}
export interface CreateEntitiesResult {
  entities: {
    /** The name of the entity */
    name: string;
    /** The type of the entity */
    entityType: string;
    /** An array of observation contents associated with the entity */
    observations: string[];
  }[];
}
/** Create multiple new entities in the knowledge graph */
export declare function createEntities(params: CreateEntitiesParams): Promise<CreateEntitiesResult>;`;

/** A program written from the declaration alone: it type-checks and runs against the real server. */
const USE_IT = `import { createEntities, readGraph } from '@capabilities/mcp-memory';
await createEntities({ entities: [{ name: 'Central', entityType: 'station', observations: ['has 8 platforms'] }] });
const graph = await readGraph();
export default graph.entities.map((entity) => \`\${entity.name}: \${entity.observations.join(', ')}\`);`;

type Match = { id: string; signature?: string; declaration?: string };

describe('search_tools detail_level "full" on @modelcontextprotocol/server-memory', () => {
  let space: Space;

  beforeAll(async () => {
    const root = await makeTempDir('search-full');
    const config = {
      capabilities: [],
      mcpServers: {
        memory: { command: process.execPath, args: [memoryServer], env: { MEMORY_FILE_PATH: path.join(root, 'memory.jsonl') } },
      },
    };
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify(config));
    space = await createSpace({ cwd: root });
    const build = await space.build();
    expect(build.errors).toEqual([]);
  }, 120_000);

  afterAll(async () => {
    await space?.close();
  });

  it("the summary signature hides the nested shape; the planner's full search gives the whole declaration, and code written from it runs", async () => {
    const { result, server } = await runScriptedTask(space, [
      callReply('search_tools', { query: 'create entities', detail_level: 'summary', limit: 2 }),
      callReply('search_tools', { query: 'create entities', detail_level: 'full', limit: 2 }),
      callReply('run_code', { code: USE_IT }),
      callReply('finish', { summary: 'Stored Central.' }),
    ]);
    const summary = (toolAnswer(server, 1, 'call_1_1').matches as Match[]).find((match) => match.id === 'mcp-memory.createEntities');
    expect(summary?.signature).toBe('createEntities(params: { entities: { … }[] }): Promise<{ entities: { … }[] }>');
    expect(summary?.declaration).toBeUndefined();
    const full = toolAnswer(server, 2, 'call_2_1').matches as Match[];
    expect(full.find((match) => match.id === 'mcp-memory.createEntities')?.declaration).toBe(CREATE_ENTITIES);
    // A second match that shares no type with the first carries its own, complete.
    expect(full.every((match) => match.declaration?.includes(`export declare function ${match.id.split('.')[1]}(`))).toBe(true);
    expect(toolAnswer(server, 3, 'call_3_1')).toMatchObject({ ok: true, value: ['Central: has 8 platforms'] });
    expect(result.success).toBe(true);
  }, 120_000);

  it("serve's search_tools gives the same declarations as the planner's", async () => {
    const router = createRunRouter();
    const mcp = await createAgentSpacesMcpServer(space, router, { name: 'agent-spaces', version: '0' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    try {
      const answer = await client.callTool({
        name: 'search_tools',
        arguments: { query: 'create entities', detail_level: 'full', limit: 2 },
      });
      const text = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
      const matches = (JSON.parse(text) as { matches: Match[] }).matches;
      expect(matches.find((match) => match.id === 'mcp-memory.createEntities')?.declaration).toBe(CREATE_ENTITIES);
      const { server } = await runScriptedTask(space, [
        callReply('search_tools', { query: 'create entities', detail_level: 'full', limit: 2 }),
        callReply('finish', { summary: 'x' }),
      ]);
      const planner = toolAnswer(server, 1, 'call_1_1').matches as Match[];
      expect(matches.map((match) => [match.id, match.declaration])).toEqual(planner.map((match) => [match.id, match.declaration]));
    } finally {
      await client.close();
    }
  }, 120_000);
});
