import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { openSpace } from '../../agents/index.js';
import { printRunResult } from './run.js';
import { progress } from '../output.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/programs/morning-trains.ts', import.meta.url));

/** `npm start`: build the example space and run the morning-trains program, with no key and no network. */
export async function demoCommand(options: { cwd: string; config?: string }): Promise<number> {
  if (!existsSync(EXAMPLE)) {
    // An installed package ships no examples: the demo is the checkout's example space.
    process.stderr.write(
      'agent-spaces demo runs the example space of an Agent Spaces checkout (npm start there).\nIn your own space: agent-spaces capabilities build, then agent-spaces run <program.ts> (see the README).\n',
    );
    return 2;
  }
  const space = await openSpace({
    cwd: options.cwd,
    ...(options.config ? { configFile: options.config } : {}),
    onEvent: (event) => {
      if (event.type === 'tool-call-end')
        progress(
          `  [call] ${event.capability}.${event.function} ${event.ok ? 'ok' : event.error?.code} (${event.durationMs.toFixed(1)} ms)`,
        );
    },
  });
  try {
    progress(`Building capabilities of ${space.config.file ?? space.config.root} → ${space.config.outDir}`);
    const build = await space.build({
      onProgress: (event) => {
        if (event.type === 'source-end')
          progress(
            `  ${event.source.padEnd(36)} ${event.status === 'loaded' ? `${event.functions} function${event.functions === 1 ? '' : 's'}` : `FAILED: ${event.message ?? ''}`}`,
          );
      },
    });
    progress(
      `Built ${build.manifest.capabilities.length} modules, ${build.functionCount} functions in ${Math.round(build.durationMs)} ms\n`,
    );
    progress(`Running examples/programs/morning-trains.ts in the sandbox:`);
    const code = await readFile(EXAMPLE, 'utf8');
    const result = await space.run(code);
    printRunResult(result, 'examples/programs/morning-trains.ts');
    return result.success && build.errors.length === 0 ? 0 : 1;
  } finally {
    await space.close();
  }
}
