// The whole build (`agent-spaces capabilities build`) of 1,000 tools in 50 JSON tool files: a cold
// build, a no-op rebuild and a rebuild after one file changed, next to the raw json-schema-to-typescript
// `compile` of the same schemas in the same run.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { compile } from 'json-schema-to-typescript';
import { buildCapabilities } from '../compiler/index.js';
import { resolveConfig } from '../config/index.js';
import { createFilesSource } from '../sources/index.js';
import type { FunctionSpec } from '../core/index.js';
import { makeTempDir } from '../test/support/temp-dir.js';
import { generateTools } from './compile.js';

const FILES = 50;

async function time(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

function toolFile(index: number, functions: FunctionSpec[]): string {
  return JSON.stringify({
    name: `bench${index}`,
    description: `Benchmark capability ${index}`,
    functions: functions.map((fn) => ({
      name: fn.toolName,
      description: fn.description,
      parameters: fn.inputSchema,
      ...(fn.outputSchema ? { returns: fn.outputSchema } : {}),
    })),
  });
}

export async function run(): Promise<string> {
  const tools = generateTools(1_000);
  const perFile = tools.length / FILES;
  const root = await makeTempDir('bench-build');
  try {
    await mkdir(path.join(root, 'tools'));
    for (let index = 0; index < FILES; index++)
      await writeFile(
        path.join(root, 'tools', `bench-${index}.json`),
        toolFile(index, tools.slice(index * perFile, (index + 1) * perFile)),
      );
    const config = resolveConfig({ capabilities: ['tools/*.json'] }, { root, env: {} });
    // The generated tools describe functions only: nothing calls them, so none needs an implementation.
    const sources = [createFilesSource({ requireImplementations: false })];

    const raw = await time(async () => {
      for (const tool of tools) {
        await compile(tool.inputSchema as never, 'Params', { bannerComment: '', format: false, additionalProperties: false });
        if (tool.outputSchema)
          await compile(tool.outputSchema as never, 'Result', { bannerComment: '', format: false, additionalProperties: false });
      }
    });
    let functions = 0;
    const cold = await time(async () => {
      functions = (await buildCapabilities({ config, sources })).functionCount;
    });
    let written = -1;
    const noop = await time(async () => {
      written = (await buildCapabilities({ config, sources })).written.length;
    });
    await writeFile(
      path.join(root, 'tools', 'bench-7.json'),
      toolFile(7, tools.slice(7 * perFile, 8 * perFile)).replace('Benchmark capability 7', 'Changed'),
    );
    let rebuilt = 0;
    const one = await time(async () => {
      rebuilt = (await buildCapabilities({ config, sources })).sources.filter((s) => s.status === 'built').length;
    });
    const row = (label: string, ms: number) =>
      `| ${label} | ${ms.toFixed(0)} | ${((ms * 1000) / tools.length).toFixed(0)} | ${(ms / raw).toFixed(3)} |`;
    return [
      '## Build: 1,000 tools in 50 JSON files',
      '',
      `${functions} functions built; the no-op rebuild wrote ${written} files; the one-file rebuild re-emitted ${rebuilt} source.`,
      '',
      '| step | ms | µs / tool | ratio to raw json-schema-to-typescript |',
      '|---|---:|---:|---:|',
      row('raw json-schema-to-typescript `compile` of the same schemas (baseline)', raw),
      row('`buildCapabilities`, cold (load, name, emit, write ~4,000 files)', cold),
      row('`buildCapabilities`, no-op rebuild', noop),
      row('`buildCapabilities`, one file changed', one),
      '',
    ].join('\n');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
