// The bench tools as an Agent Spaces capability (`@capabilities/bench`), the way a user who installed the
// package defines one: a plain-JavaScript defineTool module importing `agent-spaces`. The bench copies it
// (with data.mjs) into its user project in the cache (bench/.peers/agent-spaces/), where `agent-spaces`
// resolves to the package built from this repo (install.ts). The handlers are the same host functions
// every peer registers (data.mjs).
import { defineFunction, defineTool } from 'agent-spaces';
import { tools } from './data.mjs';

export const bench = defineTool({
  name: 'bench',
  description: 'Tools of the peers benchmark',
  functions: {
    echo: defineFunction({
      description: 'Echo the text back',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => tools.echo({ text }),
    }),
    sleep: defineFunction({
      description: 'Wait ms milliseconds',
      parameters: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
      handler: ({ ms }) => tools.sleep({ ms }),
    }),
    big: defineFunction({
      description: 'A ~5.7 MB JSON result',
      parameters: { type: 'object', properties: {} },
      handler: () => tools.big(),
    }),
    chunk: defineFunction({
      description: 'A ~50 KB JSON result',
      parameters: { type: 'object', properties: { i: { type: 'number' } }, required: ['i'] },
      handler: ({ i }) => tools.chunk({ i }),
    }),
  },
});
