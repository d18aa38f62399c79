/**
 * The zod schema of `tsagent.json` (the seed's agent format) and the types it yields. Settings are
 * strings in the seed (`"maxTurns": "25"`); numbers are accepted too and both become numbers.
 */
import { z } from 'zod';
import { mcpServerSchema } from '../config/index.js';
import { objectSchema } from './tool-schema.js';

/** MCP tool names: what clients accept (letters, digits, `_`, `-`, `.`; 1–128 characters). */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

const numeric = z
  .union([
    z.number(),
    z
      .string()
      .regex(/^-?\d+(\.\d+)?$/, 'must be a number (or a string holding one)')
      .transform(Number),
  ])
  .optional();

export const agentToolSchema = z.looseObject({
  name: z.string().regex(TOOL_NAME_PATTERN, 'must be 1–128 letters, digits, "_", "-" or "."'),
  description: z.string().min(1, 'must not be empty'),
  parameters: objectSchema,
  prompt: z.string().min(1, 'must not be empty'),
  /** Our addition: when given, the answer must be a JSON object and is served as `structuredContent`. */
  outputSchema: objectSchema.optional(),
});

export const agentSkillSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string(),
  tags: z.array(z.string()).optional(),
  examples: z.array(z.string()).optional(),
});

export const agentMetadataSchema = z.looseObject({
  name: z.string().min(1, 'must not be empty'),
  description: z.string().optional(),
  version: z.string().optional(),
  created: z.string().optional(),
  lastAccessed: z.string().optional(),
  skills: z.array(agentSkillSchema).optional(),
  tools: z.array(agentToolSchema).optional(),
});

export const agentSettingsSchema = z.looseObject({
  maxChatTurns: numeric,
  maxOutputTokens: numeric,
  temperature: numeric,
  topP: numeric,
  maxTurns: numeric,
  /** `provider:model`, e.g. `openai:gpt-4.1-mini`. */
  mostRecentModel: z.string().optional(),
});

/** Provider settings: key → value, where a value may be a `${VAR}` reference. */
export const agentProvidersSchema = z.record(z.string(), z.record(z.string(), z.string({ error: 'must be a string' })));

export const agentFileSchema = z.looseObject({
  metadata: agentMetadataSchema,
  settings: agentSettingsSchema.optional(),
  providers: agentProvidersSchema.optional(),
  mcpServers: z
    .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'server names use letters, digits, _ . -'), mcpServerSchema)
    .optional(),
});

export type AgentTool = z.output<typeof agentToolSchema>;
export type AgentSkill = z.output<typeof agentSkillSchema>;
export type AgentMetadata = z.output<typeof agentMetadataSchema>;
export type AgentSettings = z.output<typeof agentSettingsSchema>;
export type AgentFile = z.output<typeof agentFileSchema>;
