/**
 * `save_program` over MCP: a real client (SDK v2, Streamable HTTP) saves a program through `serve
 * --save-programs`, then a later execute_code imports the saved function; a server without the option
 * does not offer the tool.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADD_NOTES, makeSavedSpace } from '../space/saved-programs/test-support/saved-space.js';
import { serveSpace, type RunningServer } from './serve.js';

let root: string;
let saving: RunningServer;
let plain: RunningServer;

beforeAll(async () => {
  root = (await makeSavedSpace('save-program-tool')).root;
  // A saved program's call is a second run: it needs a sandbox slot beside its caller's (serve --http runs one program per worker by default).
  await writeFile(
    path.join(root, 'agent-spaces.config.json'),
    JSON.stringify({ capabilities: ['notes.json'], sandbox: { runsPerWorker: 4 } }),
  );
  saving = await serveSpace({ cwd: root, http: { port: 0 }, savePrograms: true, isolation: 'worker' });
  plain = await serveSpace({ cwd: root, http: { port: 0 } });
}, 120_000);
afterAll(async () => {
  await saving?.close();
  await plain?.close();
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'saver', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function textOf(result: unknown): string {
  return (((result as { content?: unknown }).content ?? []) as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

describe('serve: save_program', () => {
  it('is offered only when enabled', async () => {
    const client = await connect(plain.url ?? '');
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('save_program');
    await client.close();
  });

  it('saves a program a client sends, and a later execute_code calls it', async () => {
    const client = await connect(saving.url ?? '');
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('save_program');
    // The space is started before the save (the running server must pick up the new module).
    const before = await client.callTool({
      name: 'execute_code',
      arguments: { code: "import { list } from '@capabilities/notes';\nexport default await list();" },
    });
    expect(before.isError).not.toBe(true);

    const refused = await client.callTool({ name: 'save_program', arguments: { code: 'export default 1;', as: 'notes-tools.addNotes' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('the default export is not a function declaration (program.ts, line 1)');
    expect(existsSync(path.join(root, 'saved'))).toBe(false);

    const saved = await client.callTool({
      name: 'save_program',
      arguments: { code: ADD_NOTES, as: 'notes-tools.addNotes', run_id: 'run-42' },
    });
    expect(saved.isError, textOf(saved)).not.toBe(true);
    expect(textOf(saved)).toBe(
      "saved notes-tools.addNotes: import { addNotes } from '@capabilities/saved-notes-tools' (direct call: saved-notes-tools.addNotes)\ncalls: notes.add, notes.list",
    );
    expect(existsSync(path.join(root, 'saved', 'notes-tools', 'addNotes.json'))).toBe(true);

    const later = await client.callTool({
      name: 'execute_code',
      arguments: {
        code: "import { addNotes } from '@capabilities/saved-notes-tools';\nexport default (await addNotes({ texts: ['a', 'b'] })).notes;",
      },
    });
    expect(later.isError, textOf(later)).not.toBe(true);
    expect(textOf(later)).toContain('"a"');
    expect(textOf(later)).toContain('"b"');
    await client.close();
  }, 120_000);
});
