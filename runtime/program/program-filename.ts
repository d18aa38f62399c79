/** The file name the program module has inside the isolate, and so in its stack traces. */
export const PROGRAM_FILENAME = 'program.ts';
