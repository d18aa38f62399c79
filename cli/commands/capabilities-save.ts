import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { openSpace } from '../../agents/index.js';
import { MAX_SAVED_SOURCE_BYTES, saveProgram, SavedProgramError } from '../../space/index.js';
import { printJson, printText, progress } from '../output.js';
import { UsageError } from '../usage-error.js';

export interface SaveCommandOptions {
  cwd: string;
  config?: string;
  json: boolean;
  file: string;
  as: string;
  description?: string;
}

/** `agent-spaces capabilities save <file> --as <group.name>`: reads the file, saves it, prints where and how to call it. */
export async function saveCommand(options: SaveCommandOptions): Promise<number> {
  const file = path.resolve(options.cwd, options.file);
  const size = await stat(file).then(
    (found) => (found.isFile() ? found.size : -1),
    () => undefined,
  );
  if (size === undefined) throw new UsageError(`no such file: ${options.file}`);
  if (size < 0) throw new UsageError(`${options.file} is not a file`);
  if (size > MAX_SAVED_SOURCE_BYTES)
    throw new UsageError(`${options.file} is ${size} bytes; a saved program may have at most ${MAX_SAVED_SOURCE_BYTES}`);
  const code = await readFile(file, 'utf8');
  const space = await openSpace({ cwd: options.cwd, ...(options.config ? { configFile: options.config } : {}) });
  try {
    const report = await saveProgram(space, code, {
      as: options.as,
      file: options.file,
      origin: { savedBy: 'cli', file: path.relative(space.config.root, file).split(path.sep).join('/') },
      ...(options.description === undefined ? {} : { description: options.description }),
    });
    if (options.json) printJson(report);
    else {
      printText(report.message);
      printText(
        `  source: ${path.relative(options.cwd, report.path)}; calls: ${report.calls.length === 0 ? 'no capability' : report.calls.join(', ')}`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof SavedProgramError)) throw error;
    progress(`agent-spaces: ${error.message}`);
    return 1;
  } finally {
    await space.close();
  }
}
