import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveConfig, type ResolvedConfig } from '../../../config/index.js';
import { makeTempDir } from '../../../test/support/temp-dir.js';

/**
 * A space folder for saved-program tests: `@capabilities/notes` with `add` (free), `list` (free) and
 * `remove` (requires approval), kept in memory of the tool's module.
 */
export async function makeSavedSpace(prefix: string): Promise<{ root: string; config: ResolvedConfig }> {
  const root = await makeTempDir(prefix);
  await writeFile(
    path.join(root, 'notes.ts'),
    [
      'const notes: string[] = [];',
      'export const add = ({ text }: { text: string }) => { notes.push(text); return { count: notes.length }; };',
      'export const list = () => [...notes];',
      'export const remove = ({ index }: { index: number }) => ({ removed: notes.splice(index, 1) });',
      '',
    ].join('\n'),
  );
  const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };
  await writeFile(
    path.join(root, 'notes.json'),
    JSON.stringify({
      name: 'notes',
      implementation: './notes.ts',
      functions: [
        { name: 'add', parameters: text, returns: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] } },
        { name: 'list', parameters: { type: 'object', properties: {} }, returns: { type: 'array', items: { type: 'string' } } },
        {
          name: 'remove',
          requiresApproval: true,
          parameters: { type: 'object', properties: { index: { type: 'number' } }, required: ['index'] },
          returns: { type: 'object', properties: { removed: { type: 'array', items: { type: 'string' } } }, required: ['removed'] },
        },
      ],
    }),
  );
  await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['notes.json'] }));
  return { root, config: resolveConfig({ capabilities: ['notes.json'] }, { root, env: {} }) };
}

/** A saved program adding notes and listing them. */
export const ADD_NOTES = `import { add, list } from '@capabilities/notes';

interface Summary {
  count: number;
  notes: string[];
}

export default async function addNotes(input: { texts: string[]; prefix?: string }): Promise<Summary> {
  for (const text of input.texts) await add({ text: (input.prefix ?? '') + text });
  const notes = await list();
  return { count: notes.length, notes };
}
`;

/** A saved program removing the first note (a call that requires approval). */
export const REMOVE_FIRST = `import { remove } from '@capabilities/notes';

export default async function removeFirst(): Promise<string[]> {
  const { removed } = await remove({ index: 0 });
  return removed;
}
`;
