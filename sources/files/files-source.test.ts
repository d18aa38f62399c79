import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config/index.js';
import { createSpace } from '../../space/index.js';
import { REPO } from '../../test/support/example-space.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createFilesSource } from './files-source.js';

const CORE_URL = pathToFileURL(path.join(REPO, 'core/index.ts')).href;

describe('the files source', () => {
  it('imports a tool module once for the build and the calls of the same space', async () => {
    const root = await makeTempDir('files-once');
    const log = path.join(root, 'evaluations.log');
    // Each evaluation of the module appends a line: a second import would show as a second line.
    await writeFile(
      path.join(root, 'counter.ts'),
      `import { appendFileSync } from 'node:fs';
import { defineTool } from '${CORE_URL}';
appendFileSync(${JSON.stringify(log)}, 'evaluated\\n');
export const counter = defineTool({ name: 'counter', functions: { ping: { handler: () => 'pong' } } });
`,
    );
    const config = resolveConfig({ capabilities: ['counter.ts'] }, { root, env: {} });
    const space = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      expect((await space.build()).errors).toEqual([]);
      expect(await space.callTool('counter.ping', {})).toBe('pong');
      expect(await readFile(log, 'utf8')).toBe('evaluated\n');
    } finally {
      await space.close();
    }
  });

  it('imports the module again for a space that did not build it (a later process)', async () => {
    const root = await makeTempDir('files-later');
    await writeFile(path.join(root, 'impl.ts'), "export const hello = () => 'hello';\n");
    await writeFile(
      path.join(root, 'greeter.json'),
      JSON.stringify({
        name: 'greeter',
        implementation: './impl.ts',
        functions: [{ name: 'hello', parameters: { type: 'object', properties: {} } }],
      }),
    );
    const config = resolveConfig({ capabilities: ['greeter.json'] }, { root, env: {} });
    const builder = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    await builder.build();
    await builder.close();
    const later = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      expect(await later.callTool('greeter.hello', {})).toBe('hello');
    } finally {
      await later.close();
    }
  });

  it('fails a call of a JSON tool built without an implementation, saying what to add', async () => {
    const root = await makeTempDir('files-plain');
    await writeFile(path.join(root, 'plain.json'), JSON.stringify({ name: 'plain_tool', parameters: { type: 'object', properties: {} } }));
    const config = resolveConfig({ capabilities: ['plain.json'] }, { root, env: {} });
    const space = await createSpace({ config, sources: [createFilesSource({ requireImplementations: false })], isolation: 'in-process' });
    try {
      expect((await space.build()).errors).toEqual([]);
      const error = await space.callTool('plain-tool.plainTool', {}).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'SERVER_UNAVAILABLE',
        message:
          'capability "plain-tool" (plain.json) has no "implementation", so nothing performs its calls: add one to plain.json and rebuild',
      });
    } finally {
      await space.close();
    }
  });
});
