// Notes stored in a local JSON file (AGENT_SPACES_NOTES_FILE, default .agent-spaces/data/notes.json).
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { defineFunction, defineTool } from 'agent-spaces';

interface Note {
  id: string;
  title: string;
  content: string;
  createdAt: string;
}

function notesFile(): string {
  return process.env.AGENT_SPACES_NOTES_FILE ?? path.resolve('.agent-spaces', 'data', 'notes.json');
}

async function readNotes(): Promise<Note[]> {
  try {
    return JSON.parse(await readFile(notesFile(), 'utf8')) as Note[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function writeNotes(notes: Note[]): Promise<void> {
  const file = notesFile();
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(notes, null, 2));
  await rename(temporary, file);
}

const note = {
  type: 'object',
  properties: { id: { type: 'string' }, title: { type: 'string' }, content: { type: 'string' }, createdAt: { type: 'string' } },
  required: ['id', 'title', 'content', 'createdAt'],
  additionalProperties: false,
} as const;

export const notes = defineTool({
  name: 'notes',
  description: 'Personal notes kept in a local file',
  version: '1.0.0',
  functions: {
    create: defineFunction({
      description: 'Create a note and return it',
      parameters: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1 }, content: { type: 'string' } },
        required: ['title', 'content'],
        additionalProperties: false,
      },
      returns: note,
      handler: async ({ title, content }) => {
        const created: Note = { id: randomUUID(), title, content, createdAt: new Date().toISOString() };
        await writeNotes([...(await readNotes()), created]);
        return created;
      },
    }),
    list: defineFunction({
      description: 'List all notes, newest last; optionally only those whose title contains `query`',
      parameters: { type: 'object', properties: { query: { type: 'string' } }, additionalProperties: false },
      returns: { type: 'array', items: note },
      handler: async ({ query }) => {
        const all = await readNotes();
        return query ? all.filter((n) => n.title.toLowerCase().includes(query.toLowerCase())) : all;
      },
    }),
    remove: defineFunction({
      description: 'Delete a note by id',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      returns: { type: 'object', properties: { removed: { type: 'boolean' } }, required: ['removed'], additionalProperties: false },
      requiresApproval: true,
      approvalMessage: 'Delete note {id}?',
      handler: async ({ id }) => {
        const all = await readNotes();
        const kept = all.filter((n) => n.id !== id);
        await writeNotes(kept);
        return { removed: kept.length !== all.length };
      },
    }),
  },
});
