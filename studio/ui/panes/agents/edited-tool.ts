import type { ObjectParameters } from '../../parameters-builder.js';
import type { AgentToolView } from '../../types.js';

/** A tool of an agent as the editor changes it in place: its parameters in the builder's shape. */
export type EditedTool = AgentToolView & { parameters: ObjectParameters };

/** A new tool with a name none of `tools` has yet (`new_tool_<n>`), and placeholders to edit. */
export function newTool(tools: EditedTool[]): EditedTool {
  let index = tools.length + 1;
  while (tools.some((tool) => tool.name === `new_tool_${index}`)) index++;
  return {
    name: `new_tool_${index}`,
    description: 'What this tool does',
    parameters: { type: 'object', properties: {} },
    prompt: 'Do the task for {tool.name}.',
  };
}

/** The sample values of the form; parameters left empty take their first example, so the preview reads like a real call. */
export function sampleValues(tool: EditedTool, formValue: unknown): Record<string, unknown> {
  const values = (formValue as Record<string, unknown> | undefined) ?? {};
  for (const [key, schema] of Object.entries(tool.parameters.properties ?? {})) {
    if (values[key] === undefined && Array.isArray(schema.examples) && schema.examples.length > 0) values[key] = schema.examples[0];
  }
  return values;
}
