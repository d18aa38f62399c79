import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { saveProgram, SavedProgramError, SAVED_FORM, type Space } from '../space/index.js';
import { errorText, text } from './tool-text.js';

export const saveProgramInput = {
  code: z
    .string()
    .min(1)
    .describe(`The program to save, of the form \`${SAVED_FORM}\`: its parameter and result types become the function's.`),
  as: z
    .string()
    .min(1)
    .describe('<group>.<function>, e.g. reports.weeklySummary: the function weeklySummary of @capabilities/saved-reports.'),
  description: z.string().max(2000).optional().describe('What the function does (for search_tools and its declaration).'),
  run_id: z.string().max(200).optional().describe('The execute_code run the program comes from, kept with it (as the client says).'),
};

/**
 * `save_program` (served only when enabled: `serve --save-programs`): saves a program that worked as a
 * function of `@capabilities/saved-<group>` (space/saved-programs), type-checked first; later
 * execute_code programs and direct calls can use it. It writes to the space, so it is off by default.
 */
export function registerSaveProgramTool(server: McpServer, space: Space): void {
  server.registerTool(
    'save_program',
    {
      title: 'Save a program as a function',
      description: `Save a program that worked as a reusable function: \`${SAVED_FORM}\`, saved as <group>.<function> and imported later from '@capabilities/saved-<group>'. It is type-checked first; saving again under the same name replaces it. Its calls still need their approvals.`,
      inputSchema: saveProgramInput,
      annotations: { destructiveHint: false, idempotentHint: true, readOnlyHint: false },
    },
    async ({ code, as, description, run_id }) => {
      try {
        const report = await saveProgram(space, code, {
          as,
          ...(description === undefined ? {} : { description }),
          origin: { savedBy: 'serve (save_program)', ...(run_id === undefined ? {} : { runId: run_id }) },
        });
        return text(`${report.message}\ncalls: ${report.calls.length === 0 ? 'no capability' : report.calls.join(', ')}`);
      } catch (error) {
        if (error instanceof SavedProgramError) return errorText(error.message);
        throw error;
      }
    },
  );
}
