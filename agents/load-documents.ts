import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage, type ConfigIssue } from '../core/index.js';
import type { AgentDocument } from './agent.js';
import { parseFrontMatter } from './front-matter.js';

const attributesSchema = z.looseObject({
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  priorityLevel: z.number().int().min(0).max(999).optional(),
  include: z.enum(['always', 'manual', 'agent']).optional(),
  enabled: z.boolean().optional(),
});

/**
 * Reads `<dir>/<folder>/*.mdt` (rules or references), sorted by priority then name. Problems are
 * pushed to `issues` with the file and front matter field as path; such files are skipped.
 */
export async function loadDocuments(dir: string, folder: 'rules' | 'references', issues: ConfigIssue[]): Promise<AgentDocument[]> {
  let names: string[];
  try {
    names = (await readdir(path.join(dir, folder))).filter((name) => name.endsWith('.mdt')).sort();
  } catch {
    return []; // the folder is optional
  }
  const documents: AgentDocument[] = [];
  for (const name of names) {
    const file = `${folder}/${name}`;
    let parsed;
    try {
      parsed = await parseFrontMatter(await readFile(path.join(dir, file), 'utf8'));
    } catch (error) {
      issues.push({ path: `${file}: front matter`, message: errorMessage(error).split('\n')[0] ?? 'invalid YAML' });
      continue;
    }
    const attributes = attributesSchema.safeParse(parsed.attributes);
    if (!attributes.success) {
      for (const issue of attributes.error.issues)
        issues.push({ path: `${file}: ${issue.path.join('.') || '(front matter)'}`, message: issue.message });
      continue;
    }
    const { name: title, description, priorityLevel, include, enabled } = attributes.data;
    documents.push({
      file,
      name: title ?? name.replace(/\.mdt$/, ''),
      ...(description !== undefined ? { description } : {}),
      priorityLevel: priorityLevel ?? 500,
      include: include ?? 'always',
      enabled: enabled ?? true,
      text: parsed.body,
    });
  }
  return documents.sort((a, b) => a.priorityLevel - b.priorityLevel || a.name.localeCompare(b.name));
}
