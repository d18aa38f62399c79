/** Whether this process was started with `--no-node-snapshot`, which isolated-vm needs on Node 20+ wherever an isolate is made. */
export function hasNoNodeSnapshot(): boolean {
  const flags = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)];
  return flags.includes('--no-node-snapshot');
}
