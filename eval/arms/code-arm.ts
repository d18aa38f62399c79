import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { createAgentSpacesMcpServer, createRunRouter, SERVER_INFO } from '../../server/index.js';
import type { Space } from '../../space/index.js';
import { runChatLoop } from './chat-loop.js';
import type { ArmInput, ArmOutcome } from './arm-types.js';

/** The code-mode surface of `agent-spaces serve` over one space, seen by a real MCP client in memory. */
export interface CodeSurface {
  tools: ChatCompletionFunctionTool[];
  /** The server's instructions, which an MCP client hands its model with the tools. */
  instructions: string;
  call(name: string, args: unknown): Promise<{ text: string; structured?: Record<string, unknown>; isError: boolean }>;
  close(): Promise<void>;
}

export async function openCodeSurface(space: Space): Promise<CodeSurface> {
  const server = await createAgentSpacesMcpServer(space, createRunRouter(), SERVER_INFO);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'agent-spaces-eval', version: SERVER_INFO.version });
  await client.connect(clientSide);
  const listed = await client.listTools();
  return {
    tools: listed.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.inputSchema as Record<string, unknown>,
      },
    })),
    instructions: client.getInstructions() ?? '',
    async call(name, args) {
      const result = await client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> });
      const content = Array.isArray(result.content) ? (result.content as { type: string; text?: string; uri?: string }[]) : [];
      const text = content.map((block) => (block.type === 'text' ? (block.text ?? '') : JSON.stringify(block))).join('\n');
      return {
        text,
        ...(result.structuredContent ? { structured: result.structuredContent as Record<string, unknown> } : {}),
        isError: result.isError === true,
      };
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/**
 * Code mode as a client of `serve` uses it: the surface's three tools (search_tools, get_types,
 * execute_code) as function tools of a chat loop, the system message the suite's policy followed by
 * the server's instructions. A code run counts when it got past the type-check (as the planner counts
 * them); the capability calls inside it count as tool calls.
 */
export async function runCodeArm(input: ArmInput, surface: CodeSurface): Promise<ArmOutcome> {
  return runChatLoop({
    model: input.model,
    system: surface.instructions ? `${input.suite.policy}\n\n${surface.instructions}` : input.suite.policy,
    user: input.task.instruction,
    tools: surface.tools,
    budget: input.budget,
    counter: input.counter,
    ...(input.signal ? { signal: input.signal } : {}),
    async perform(name, args) {
      const result = await surface.call(name, args);
      if (name === 'execute_code') {
        const structured = result.structured ?? {};
        const error = structured.error as { code?: string } | undefined;
        return {
          content: result.text,
          toolCalls: typeof structured.calls === 'number' ? structured.calls : 0,
          codeRun: error?.code !== 'TYPE_CHECK_FAILED',
        };
      }
      return { content: result.text, toolCalls: 0, search: name === 'search_tools' || name === 'get_types' };
    },
  });
}
