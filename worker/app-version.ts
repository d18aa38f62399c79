import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The application version DBOS stamps on every run: DBOS recovers a run only in a worker of the
 * same version (a program's replay must meet the same host code). The package's version, unless
 * `$AGENT_SPACES_APP_VERSION` says otherwise (e.g. a deploy id).
 */
export function applicationVersion(env: Record<string, string | undefined> = process.env): string {
  const override = env.AGENT_SPACES_APP_VERSION;
  if (override !== undefined && override !== '') return override;
  const file = fileURLToPath(import.meta.resolve('agent-spaces/package.json'));
  return `agent-spaces@${(JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version}`;
}
