import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveConfig, type ResolvedConfig } from '../../config/index.js';
import { accessFromIds } from '../../core/index.js';
import { createSpace } from '../../space/index.js';
import { REPO } from '../../test/support/example-space.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createFilesSource } from './files-source.js';

const CORE_URL = pathToFileURL(path.join(REPO, 'core/index.ts')).href;

/** A defineTool module `name` whose `ping` answers `name`; with `log`, each evaluation of it appends `<name>` and a newline there. */
function toolSource(name: string, log?: string): string {
  const logged =
    log === undefined ? '' : `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, '${name}\\n');\n`;
  return `${logged}import { defineTool } from '${CORE_URL}';
export const ${name} = defineTool({ name: '${name}', functions: { ping: { handler: () => '${name}' } } });
`;
}

/** Builds the space as an earlier process did: a space that builds, then closes (the next space imports nothing it has not called). */
async function buildBefore(config: ResolvedConfig): Promise<void> {
  const builder = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
  try {
    expect((await builder.build()).errors).toEqual([]);
  } finally {
    await builder.close();
  }
}

describe('the files source', () => {
  it('imports a tool module once for the build and the calls of the same space', async () => {
    const root = await makeTempDir('files-once');
    const log = path.join(root, 'evaluations.log');
    // Each evaluation of the module appends a line: a second import would show as a second line.
    await writeFile(path.join(root, 'counter.ts'), toolSource('counter', log));
    const config = resolveConfig({ capabilities: ['counter.ts'] }, { root, env: {} });
    const space = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      expect((await space.build()).errors).toEqual([]);
      expect(await space.callTool('counter.ping', {})).toBe('counter');
      expect(await readFile(log, 'utf8')).toBe('counter\n');
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
    await buildBefore(config);
    const later = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      expect(await later.callTool('greeter.hello', {})).toBe('hello');
    } finally {
      await later.close();
    }
  });

  it('imports a tool module on its first call, once, when the space did not build it', async () => {
    const root = await makeTempDir('files-first-call');
    const log = path.join(root, 'evaluations.log');
    await writeFile(path.join(root, 'counter.ts'), toolSource('counter', log));
    const config = resolveConfig({ capabilities: ['counter.ts'] }, { root, env: {} });
    await buildBefore(config);
    await writeFile(log, '');

    const later = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      const untouched = await later.run('export default 1 + 1;', { check: false });
      expect(untouched).toMatchObject({ success: true, result: 2 });
      expect(await readFile(log, 'utf8')).toBe('');
      const calls = await later.run(
        "import { counter } from '@capabilities/counter'; export default await Promise.all([counter.ping({}), counter.ping({})]);",
        { check: false },
      );
      expect(calls).toMatchObject({ success: true, result: ['counter', 'counter'] });
      expect(await later.callTool('counter.ping', {})).toBe('counter');
      expect(await readFile(log, 'utf8')).toBe('counter\n');
    } finally {
      await later.close();
    }
  });

  it('imports the tool files a program names as its run starts, before any call; a narrowed run only those it may call', async () => {
    const root = await makeTempDir('files-prepare');
    const log = path.join(root, 'evaluations.log');
    await writeFile(path.join(root, 'alpha.ts'), toolSource('alpha', log));
    await writeFile(path.join(root, 'beta.ts'), toolSource('beta', log));
    const config = resolveConfig({ capabilities: ['alpha.ts', 'beta.ts'] }, { root, env: {} });
    await buildBefore(config);
    await writeFile(log, '');

    const later = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      // Both named, neither called (the narrowed run may call alpha only): alpha's file is imported.
      const program =
        "import { alpha } from '@capabilities/alpha';\nimport { beta } from '@capabilities/beta';\nexport default typeof alpha.ping + typeof beta.ping;";
      const narrowed = await later.run(program, { check: false, access: accessFromIds(['alpha.ping'], 'this test') });
      expect(narrowed).toMatchObject({ success: true, result: 'functionfunction' });
      await expect.poll(() => readFile(log, 'utf8'), { timeout: 30_000 }).toBe('alpha\n');
      const full = await later.run(program, { check: false });
      expect(full).toMatchObject({ success: true });
      await expect.poll(() => readFile(log, 'utf8'), { timeout: 30_000 }).toBe('alpha\nbeta\n');
    } finally {
      await later.close();
    }
  });

  it('fails the calls of a module that no longer loads, saying why, and serves the others', async () => {
    const root = await makeTempDir('files-broken-later');
    for (const name of ['good', 'broken', 'gone']) await writeFile(path.join(root, `${name}.ts`), toolSource(name));
    const config = resolveConfig({ capabilities: ['good.ts', 'broken.ts', 'gone.ts'] }, { root, env: {} });
    await buildBefore(config);
    await rm(path.join(root, 'gone.ts'));
    const log = path.join(root, 'evaluations.log');
    await writeFile(
      path.join(root, 'broken.ts'),
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(log)}, 'broken evaluated\\n');\nthrow new Error('the tool file broke at import');\n`,
    );

    const later = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      expect(await later.callTool('good.ping', {})).toBe('good');
      // The first call gives up at once (its run ended): the import it started fails later, unobserved by it.
      const cancelled = await later.callTool('broken.ping', {}, { signal: AbortSignal.abort() }).catch((e: unknown) => e);
      expect(cancelled).toMatchObject({ code: 'CANCELLED' });
      await expect.poll(() => readFile(log, 'utf8'), { timeout: 30_000 }).toContain('broken evaluated');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await later.callTool('broken.ping', {}).catch((e: unknown) => e);
        expect(error).toMatchObject({ code: 'SERVER_UNAVAILABLE', capability: 'broken' });
        expect((error as Error).message).toContain('could not load the host side of @capabilities/broken (broken.ts)');
        expect((error as Error).message).toContain('the tool file broke at import');
        // A rebuild answers a file that moved, not one that fails.
        expect((error as Error).message).not.toContain('if files moved');
      }
      const gone = await later.callTool('gone.ping', {}).catch((e: unknown) => e);
      expect(gone).toMatchObject({ code: 'SERVER_UNAVAILABLE', capability: 'gone' });
      expect((gone as Error).message).toContain('could not load the host side of @capabilities/gone (gone.ts)');
      expect((gone as Error).message).toContain('(rebuild with `agent-spaces capabilities build` if files moved)');
      const run = await later.run(
        "import { broken } from '@capabilities/broken';\nlet message = '';\ntry { await broken.ping({}); } catch (error) { message = (error as Error).message; }\nexport default message;",
        { check: false },
      );
      expect(run).toMatchObject({ success: true });
      expect(run.result).toContain('the tool file broke at import');
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await later.close();
    }
  });

  it('keeps the modules of the build it started with when a later build reads an edited file', async () => {
    const root = await makeTempDir('files-later-build');
    const tool = (answer: string): string =>
      `import { defineTool } from '${CORE_URL}';\nexport const answer = defineTool({ name: 'answer', functions: { get: { handler: () => '${answer}' } } });\n`;
    await writeFile(path.join(root, 'answer.ts'), tool('first'));
    const config = resolveConfig({ capabilities: ['answer.ts'] }, { root, env: {} });
    const space = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      expect((await space.build()).errors).toEqual([]);
      expect(await space.run('export default 1;', { check: false })).toMatchObject({ success: true });
      await writeFile(path.join(root, 'answer.ts'), tool('second'));
      expect((await space.build()).errors).toEqual([]);
      // Started before the second build, not called yet: its first call is still the first build's module.
      expect(await space.callTool('answer.get', {})).toBe('first');
      await space.reload();
      expect(await space.callTool('answer.get', {})).toBe('second');
    } finally {
      await space.close();
    }
  });

  it('imports a module whose calls ask for approval at the start: its message function, and its failure to load, are known before any call', async () => {
    const root = await makeTempDir('files-approval-eager');
    await writeFile(
      path.join(root, 'guarded.ts'),
      `import { defineTool } from '${CORE_URL}';
export const guarded = defineTool({
  name: 'guarded',
  functions: {
    remove: {
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      requiresApproval: true,
      approvalMessage: (p: { id: string }) => 'remove item ' + p.id + ' for good?',
      handler: () => 'removed',
    },
  },
});
`,
    );
    const config = resolveConfig({ capabilities: ['guarded.ts'] }, { root, env: {} });
    await buildBefore(config);

    const messages: string[] = [];
    const later = await createSpace({
      config,
      sources: [createFilesSource()],
      isolation: 'in-process',
      approvalHandler: async (request) => {
        messages.push(request.message);
        return { approved: true };
      },
    });
    try {
      expect(await later.callTool('guarded.remove', { id: 'a7' })).toBe('removed');
      expect(messages).toEqual(['remove item a7 for good?']);
    } finally {
      await later.close();
    }

    await writeFile(path.join(root, 'guarded.ts'), "throw new Error('the guarded file broke');\n");
    const broken = await createSpace({ config, sources: [createFilesSource()], isolation: 'in-process' });
    try {
      // The space starts on its first use: the run fails before its program does anything.
      const failed = await broken.run('export default 1;', { check: false }).catch((e: unknown) => e);
      expect(failed).toMatchObject({ code: 'BACKEND_LOAD_FAILED' });
      expect((failed as Error).message).toContain('@capabilities/guarded (guarded.ts): the guarded file broke');
    } finally {
      await broken.close();
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
