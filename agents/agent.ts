import type { McpServerConfig } from '../config/index.js';
import type { AgentMetadata, AgentSettings, AgentSkill, AgentTool } from './agent-definition.js';

/** Interactive (chat), Autonomous (`metadata.skills`, served over A2A) or Tools (`metadata.tools`, served over MCP). */
export type AgentMode = 'interactive' | 'autonomous' | 'tools';

/** A rule or reference: a `.mdt` file's front matter and Markdown body. */
export interface AgentDocument {
  /** Path relative to the agent directory, e.g. `rules/tone.mdt`. */
  file: string;
  name: string;
  description?: string;
  /** Lower comes first (0–999; default 500). */
  priorityLevel: number;
  /** `always`: part of every session; `manual` / `agent`: only when asked for (never in headless sessions). */
  include: 'always' | 'manual' | 'agent';
  enabled: boolean;
  text: string;
}

/** A loaded, validated agent directory. */
export interface Agent {
  /** Absolute path of the directory. */
  dir: string;
  name: string;
  description?: string;
  version: string;
  mode: AgentMode;
  metadata: AgentMetadata;
  settings: AgentSettings;
  tools: AgentTool[];
  skills: AgentSkill[];
  /** `prompt.md` (empty when there is none). */
  prompt: string;
  rules: AgentDocument[];
  references: AgentDocument[];
  /** The agent's own MCP servers, `${VAR}`s expanded, stdio `cwd` resolved against `dir`. */
  mcpServers: Record<string, McpServerConfig>;
  /**
   * Provider settings as written (`${VAR}` not yet expanded; see `resolveAgentModel`). Not enumerable,
   * so logging or serialising an agent never shows a key.
   */
  readonly providers: Record<string, Record<string, string>>;
}
