import { PROGRAM_FILENAME } from '../program/program-filename.js';

/**
 * The frames of a stack that belong to the program and its capability modules: an error thrown while
 * the host compiled, linked or evaluated them also carries the host's own frames (file paths of this
 * machine), which the program must not read.
 */
export function programFrames(stack: string): string {
  const lines = stack.split('\n');
  return [
    lines[0] ?? '',
    ...lines
      .slice(1)
      .filter((line) => line.includes(PROGRAM_FILENAME) || line.includes('@capabilities/') || line.includes('<isolated-vm>')),
  ].join('\n');
}
