// A studio over two folders (startStudio({ spaces })): the API answers for the space a request names
// (header, or the event stream's query parameter), lists the spaces for the page's picker, and refuses
// a space it does not have, naming those it has.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpace } from '../../agents/index.js';
import { REPO } from '../../test/support/example-space.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { startStudio, type RunningStudio } from './index.js';
import type { CapabilitiesView } from './wire-types.js';

let root: string;
let studio: RunningStudio;

async function call<T>(pathname: string, space?: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${studio.origin}${pathname}`, {
    headers: { authorization: `Bearer ${studio.token}`, ...(space === undefined ? {} : { 'x-agent-spaces-space': space }) },
  });
  return { status: response.status, body: (await response.json()) as T };
}

beforeAll(async () => {
  root = await makeTempDir('studio-spaces');
  await mkdir(path.join(root, 'a'), { recursive: true });
  const crm = path.relative(path.join(root, 'a'), path.join(REPO, 'capabilities/crm.ts')).split(path.sep).join('/');
  await writeFile(path.join(root, 'a', 'agent-spaces.config.json'), JSON.stringify({ capabilities: [crm] }));
  await mkdir(path.join(root, 'b', 'tools', 'impl'), { recursive: true });
  await writeFile(path.join(root, 'b', 'tools', 'impl', 'vault.mjs'), "export function open() { return 'the vault of b'; }\n");
  await writeFile(
    path.join(root, 'b', 'tools', 'vault.json'),
    JSON.stringify({
      name: 'vault',
      implementation: './impl/vault.mjs',
      functions: [{ name: 'open', parameters: { type: 'object', properties: {} }, returns: { type: 'string' } }],
    }),
  );
  const uiDir = path.join(root, 'ui');
  await mkdir(uiDir, { recursive: true });
  await writeFile(path.join(uiDir, 'index.html'), '<!doctype html><title>studio test page</title>');
  studio = await startStudio({
    openSpace,
    spaces: [
      { name: 'a', cwd: path.join(root, 'a') },
      { name: 'b', cwd: path.join(root, 'b') },
    ],
    uiDir,
  });
}, 120_000);

afterAll(async () => {
  await studio?.close();
});

const ownModules = (view: CapabilitiesView): string[] =>
  view.modules
    .filter((module) => module.own)
    .map((module) => module.module)
    .sort();

describe('a studio over several spaces', () => {
  it('lists the spaces for the picker, the first being the default', async () => {
    expect(await call('/api/spaces')).toEqual({ status: 200, body: { spaces: ['a', 'b'], current: 'a' } });
    expect((await call('/api/spaces', 'b')).body).toEqual({ spaces: ['a', 'b'], current: 'b' });
  });

  it('answers each request for the space it names', async () => {
    const a = await call<CapabilitiesView>('/api/capabilities', 'a');
    const b = await call<CapabilitiesView>('/api/capabilities', 'b');
    expect(a.status).toBe(200);
    expect(a.body.root).toBe(path.join(root, 'a'));
    expect(ownModules(a.body)).toContain('crm');
    expect(ownModules(a.body)).not.toContain('vault');
    expect(b.body.root).toBe(path.join(root, 'b'));
    expect(ownModules(b.body)).toContain('vault');
    expect(ownModules(b.body)).not.toContain('crm');
    expect(ownModules((await call<CapabilitiesView>('/api/capabilities')).body)).toContain('crm');
  });

  it('refuses a space it does not have, naming those it has, on the API and the event stream', async () => {
    const unknown = await call<{ error: { message: string } }>('/api/capabilities', 'c');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('no space "c" in this studio (it has "a", "b")');
    const events = await fetch(`${studio.origin}/api/events?token=${encodeURIComponent(studio.token)}&space=c`);
    expect(events.status).toBe(404);
    // Without the token, the names are not told.
    expect((await fetch(`${studio.origin}/api/capabilities`, { headers: { 'x-agent-spaces-space': 'c' } })).status).toBe(401);
  });
});
