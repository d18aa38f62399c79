import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolCallError } from '../../core/index.js';
import type { CapabilitySpec } from '../../core/index.js';
import { connectMcpServer, listAllTools } from './connect.js';
import type { StdioServerConfig } from '../../config/index.js';
import type { CallProgress } from '../../bridge/index.js';
import { createMcpBackend } from './mcp-backend.js';
import type { McpBackend } from './mcp-backend.js';
import { callOf, capabilityFromTools, processExists } from './test-support/mcp-test-calls.js';

const require = createRequire(import.meta.url);
/** The published entry point of an installed server package (its `bin`). */
function serverEntry(packageName: string): string {
  return join(dirname(require.resolve(`${packageName}/package.json`)), 'dist', 'index.js');
}

/** Discovers a server's tools the way the compiler does, so calls carry the built specs. */
async function discover(module: string, name: string, config: StdioServerConfig): Promise<CapabilitySpec> {
  const connection = await connectMcpServer(name, config);
  try {
    return capabilityFromTools(module, name, await listAllTools(connection.client));
  } finally {
    await connection.close();
  }
}

let folder: string;
let backend: McpBackend;
const everythingConfig: StdioServerConfig = {
  command: process.execPath,
  args: [serverEntry('@modelcontextprotocol/server-everything'), 'stdio'],
};
let memoryConfig: StdioServerConfig;
let filesConfig: StdioServerConfig;
let everything: CapabilitySpec;
let memory: CapabilitySpec;
let files: CapabilitySpec;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'agent-spaces-mcp-'));
  memoryConfig = {
    command: process.execPath,
    args: [serverEntry('@modelcontextprotocol/server-memory')],
    env: { MEMORY_FILE_PATH: join(folder, 'memory.jsonl') },
  };
  filesConfig = { command: process.execPath, args: [serverEntry('@modelcontextprotocol/server-filesystem'), folder] };
  [everything, memory, files] = await Promise.all([
    discover('mcp-everything', 'everything', everythingConfig),
    discover('mcp-memory', 'memory', memoryConfig),
    discover('mcp-files', 'files', filesConfig),
  ]);
  backend = createMcpBackend({
    servers: {
      'mcp-everything': { name: 'everything', config: everythingConfig },
      'mcp-memory': { name: 'memory', config: memoryConfig },
      'mcp-files': { name: 'files', config: filesConfig },
    },
  });
});

afterAll(async () => {
  const pids = backend.connections().flatMap((connection) => (connection.pid === undefined ? [] : [connection.pid]));
  await backend.close();
  expect(pids.filter(processExists)).toEqual([]);
  await rm(folder, { recursive: true, force: true });
});

describe('@modelcontextprotocol/server-everything', () => {
  it('calls dashed tool names and returns their text', async () => {
    await expect(backend.call(callOf(everything, 'get-sum', { a: 2, b: 3 }))).resolves.toBe('The sum of 2 and 3 is 5.');
    await expect(backend.call(callOf(everything, 'echo', { message: 'hi' }))).resolves.toBe('Echo: hi');
  });

  it('returns structuredContent for a tool with an output schema', async () => {
    const weather = await backend.call(callOf(everything, 'get-structured-content', { location: 'Chicago' }));
    expect(weather).toEqual({ temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) });
  });

  it('returns the image block in full mode', async () => {
    const result = (await backend.call(callOf(everything, 'get-tiny-image', {}, { resultMode: 'full' }))) as {
      content: Array<{ type: string; mimeType?: string }>;
    };
    expect(result.content.map((block) => block.type)).toContain('image');
    expect(result.content.find((block) => block.type === 'image')?.mimeType).toBe('image/png');
  });

  it('forwards progress notifications of a long-running operation', async () => {
    const progress: CallProgress[] = [];
    const value = await backend.call(
      callOf(everything, 'trigger-long-running-operation', { duration: 0.3, steps: 3 }, { onProgress: (update) => progress.push(update) }),
    );
    expect(value).toContain('Long running operation completed');
    // The SDK dispatches notifications a microtask late, so the last one may arrive after the result.
    expect(progress.slice(0, 2)).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
    ]);
  });

  it('rejects with the server text when the server answers with an error result', async () => {
    // Arguments the bridge would refuse; sent straight to show the server's own error result.
    const error = await backend.call(callOf(everything, 'get-sum', { a: 'two', b: 3 })).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ToolCallError);
    expect((error as ToolCallError).code).toBe('TOOL_ERROR_RESULT');
    expect((error as ToolCallError).message).toMatch(/Input validation error/);
  });
});

describe('@modelcontextprotocol/server-memory', () => {
  it('creates entities and reads them back from the graph', async () => {
    await backend.call(
      callOf(memory, 'create_entities', {
        entities: [
          { name: 'Ada', entityType: 'person', observations: ['wrote the first program'] },
          { name: 'Analytical Engine', entityType: 'machine', observations: [] },
        ],
      }),
    );
    await backend.call(
      callOf(memory, 'create_relations', { relations: [{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }] }),
    );
    const graph = (await backend.call(callOf(memory, 'read_graph'))) as { entities: Array<{ name: string }>; relations: unknown[] };
    expect(graph.entities.map((entity) => entity.name).sort()).toEqual(['Ada', 'Analytical Engine']);
    expect(graph.relations).toEqual([{ from: 'Ada', to: 'Analytical Engine', relationType: 'programmed' }]);
    expect(await readFile(join(folder, 'memory.jsonl'), 'utf8')).toContain('"name":"Ada"');
  });
});

describe('@modelcontextprotocol/server-filesystem', () => {
  it('writes a file in the allowed folder and reads it back', async () => {
    const path = join(folder, 'note.txt');
    await backend.call(callOf(files, 'write_file', { path, content: 'hello from agent spaces\n' }));
    expect(await readFile(path, 'utf8')).toBe('hello from agent spaces\n');
    await expect(backend.call(callOf(files, 'read_text_file', { path }))).resolves.toEqual({ content: 'hello from agent spaces\n' });
  });

  it('refuses a path outside the allowed folder with the server text', async () => {
    const error = await backend.call(callOf(files, 'read_text_file', { path: '/etc/hostname' })).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ToolCallError);
    expect((error as ToolCallError).code).toBe('TOOL_ERROR_RESULT');
    expect((error as ToolCallError).message).toMatch(/Access denied/);
  });

  it('uses one process per server for all those calls', () => {
    expect(backend.connections().map((connection) => [connection.server, connection.connects])).toEqual(
      expect.arrayContaining([
        ['everything', 1],
        ['memory', 1],
        ['files', 1],
      ]),
    );
  });
});
