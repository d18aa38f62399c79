/**
 * The command a connection to the CLI's daemon names (`R`, cli/daemon/frames.ts), checked before a warm
 * process is spent on it: the command line's own client always sends this shape; anything else (another
 * program on the user's socket, a client of another version) is answered "not taken" with what was wrong.
 */
import path from 'node:path';
import type { DaemonRequest } from './client.js';

/** The request in `payload`, or what is wrong with it. */
export function parseDaemonRequest(payload: Buffer): DaemonRequest | string {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch (error) {
    return `the request is not JSON: ${(error as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the request is not an object';
  const request = value as Record<string, unknown>;
  const { argv, cwd, env, bin, terminal } = request;
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) return 'request.argv is not a list of strings';
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd)) return 'request.cwd is not an absolute path';
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return 'request.env is not an object';
  const badVariable = Object.entries(env).find(([, text]) => typeof text !== 'string');
  if (badVariable !== undefined) return `request.env.${badVariable[0]} is not a string`;
  if (typeof bin !== 'string') return 'request.bin is not a string';
  if (typeof terminal !== 'object' || terminal === null) return 'request.terminal is not an object';
  const screen = terminal as Record<string, unknown>;
  for (const name of ['stdin', 'stdout', 'stderr'])
    if (typeof screen[name] !== 'boolean') return `request.terminal.${name} is not true or false`;
  for (const name of ['columns', 'rows'])
    if (screen[name] !== undefined && !(Number.isInteger(screen[name]) && (screen[name] as number) > 0))
      return `request.terminal.${name} is not a positive whole number`;
  if (
    request['umask'] !== undefined &&
    !(Number.isInteger(request['umask']) && (request['umask'] as number) >= 0 && (request['umask'] as number) <= 0o777)
  )
    return 'request.umask is not a mode (0 to 0o777)';
  return value as DaemonRequest;
}
