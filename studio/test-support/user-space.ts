// A new user's own space for studio tests: a fresh folder with one capability of its own (a JSON tool
// file with two functions, one needing approval) and nothing of the example space.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir } from '../../test/support/temp-dir.js';

/** The module's description: long on purpose (the studio shows its start and expands it on click). */
export const NOTEBOOK_DESCRIPTION = [
  'A small notebook kept in memory for this space. Notes have a title and optional tags; adding one answers with its id.',
  'Deleting a note needs a person to approve it in the studio, since a deleted note cannot be brought back.',
  'The notebook forgets everything when the process that serves it stops: it is a fixture, not a database.',
  'END-OF-DESCRIPTION',
].join(' ');

const NOTEBOOK_TOOL = {
  name: 'notebook',
  description: NOTEBOOK_DESCRIPTION,
  implementation: './notebook.ts',
  functions: [
    {
      name: 'addNote',
      description: 'Add a note; answers with its id',
      parameters: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['title'],
      },
      returns: {
        type: 'object',
        properties: { id: { type: 'string' }, title: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
        required: ['id', 'title', 'tags'],
      },
    },
    {
      name: 'deleteNote',
      description: 'Delete a note by its id (needs approval)',
      requiresApproval: true,
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      returns: { type: 'object', properties: { deleted: { type: 'string' } }, required: ['deleted'] },
    },
  ],
};

const NOTEBOOK_IMPLEMENTATION = `let next = 1;
export function addNote({ title, tags }: { title: string; tags?: string[] }) {
  return { id: \`n-\${next++}\`, title, tags: tags ?? [] };
}
export function deleteNote({ id }: { id: string }) {
  if (!id.startsWith('n-')) throw new Error(\`no note "\${id}" in the notebook\`);
  return { deleted: id };
}
`;

export interface UserSpace {
  root: string;
}

/** A fresh folder with `agent-spaces.config.json` and `tools/notebook.json` (+ its implementation). */
export async function makeUserSpace(prefix: string): Promise<UserSpace> {
  const root = await makeTempDir(prefix);
  await mkdir(path.join(root, 'tools'), { recursive: true });
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['tools/*.json'] }, null, 2));
  await writeFile(path.join(root, 'tools/notebook.json'), JSON.stringify(NOTEBOOK_TOOL, null, 2));
  await writeFile(path.join(root, 'tools/notebook.ts'), NOTEBOOK_IMPLEMENTATION);
  return { root };
}

/** A fresh folder whose config names no capability of its own (only the standard library). */
export async function makeEmptySpace(prefix: string): Promise<UserSpace> {
  const root = await makeTempDir(prefix);
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }, null, 2));
  return { root };
}
