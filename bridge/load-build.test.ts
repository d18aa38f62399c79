import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentSpacesError } from '../core/index.js';
import type { CapabilitySpec } from '../core/index.js';
import { loadBuiltCapabilities } from './load-build.js';

const folders: string[] = [];
afterEach(async () => Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true }))));

async function outDir(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'agent-spaces-build-'));
  folders.push(folder);
  return folder;
}

const spec = (module: string): CapabilitySpec => ({
  module,
  namespace: module,
  source: { kind: 'std' },
  config: {},
  functions: [{ name: 'run', toolName: 'run', inputSchema: { type: 'object' }, resultKind: 'value' }],
});

describe('loadBuiltCapabilities', () => {
  it('reads every capabilities/*/schema.json, sorted by module', async () => {
    const dir = await outDir();
    for (const module of ['weather', 'crm']) {
      await mkdir(join(dir, 'capabilities', module), { recursive: true });
      await writeFile(join(dir, 'capabilities', module, 'schema.json'), JSON.stringify(spec(module)));
    }
    await mkdir(join(dir, 'capabilities', 'half-built'), { recursive: true });
    expect((await loadBuiltCapabilities(dir)).map((capability) => capability.module)).toEqual(['crm', 'weather']);
  });

  it('says to run the build when the folder is missing', async () => {
    const dir = await outDir();
    const error = await loadBuiltCapabilities(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentSpacesError);
    expect((error as AgentSpacesError).message).toBe(
      `no built capabilities in ${join(dir, 'capabilities')}: run \`agent-spaces capabilities build\` first`,
    );
  });

  it('names the file that is not a capability schema', async () => {
    const dir = await outDir();
    await mkdir(join(dir, 'capabilities', 'bad'), { recursive: true });
    await writeFile(join(dir, 'capabilities', 'bad', 'schema.json'), '{"module": 1}');
    await expect(loadBuiltCapabilities(dir)).rejects.toThrow(
      `${join(dir, 'capabilities', 'bad', 'schema.json')} is not a capability schema`,
    );
  });
});
