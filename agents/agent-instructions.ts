import type { Agent, AgentDocument } from './agent.js';

const DEFAULT_PROMPTS = {
  interactive: 'You are a helpful assistant.',
  autonomous: 'You are an autonomous agent. Answer the request completely in one reply: no clarifying questions, no partial answers.',
  tools: 'You are a helpful assistant.',
} as const;

/**
 * The instructions a headless session of the agent runs with: its `prompt.md` (or the mode's default),
 * then its rules and references that are enabled and included always, by priority.
 */
export function agentInstructions(agent: Agent): string {
  const sections = [
    `# Agent: ${agent.name}${agent.description ? `\n${agent.description}` : ''}`,
    agent.prompt || DEFAULT_PROMPTS[agent.mode],
    'This is a headless session: nobody can answer questions. Do the task with the tools you have and finish with the answer itself — no tool-call details, no questions back.',
  ];
  const rules = included(agent.rules);
  if (rules.length > 0) sections.push(`## Rules\n\n${rules.map(section).join('\n\n')}`);
  const references = included(agent.references);
  if (references.length > 0) sections.push(`## References\n\n${references.map(section).join('\n\n')}`);
  return sections.join('\n\n');
}

function included(documents: AgentDocument[]): AgentDocument[] {
  return documents.filter((document) => document.enabled && document.include === 'always');
}

function section(document: AgentDocument): string {
  return `### ${document.name}\n\n${document.text}`;
}
