// Importing the package loads no SDK it does not need yet: openai, the MCP and A2A SDKs, yaml and the
// TypeScript toolchain load when a model is asked, a server connected or served, an agent file read or a
// program type-checked — not with `import 'agent-spaces'` (issue 10: host RSS; issue 11: start-up).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { packagesOf, recordResolvedModules } from './support/resolved-modules.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const LAZY = /^(openai|@modelcontextprotocol\/.*|@a2a-js\/.*|yaml|typescript|ts-morph|@ts-morph\/.*|@readme\/.*|@dbos-inc\/.*|pg)$/;

describe('importing the package root', () => {
  it('loads none of openai, the MCP SDK, the A2A SDK, yaml, TypeScript or ts-morph (the probe sees the MCP SDK once asked for it)', async () => {
    const recorder = await recordResolvedModules();
    const probe = `
      import { appendFileSync } from 'node:fs';
      await import('./index.ts');
      appendFileSync(process.env.RESOLVED_MODULES_LOG, 'mark:after-root\\n');
      await import('@modelcontextprotocol/sdk/types.js');
    `;
    await promisify(execFile)(
      process.execPath,
      ['--no-node-snapshot', '--import', 'tsx', ...recorder.nodeArgs, '--input-type=module', '-e', probe],
      {
        cwd: REPO,
        env: { ...process.env, ...recorder.env },
      },
    );
    const urls = await recorder.urls();
    const mark = urls.indexOf('mark:after-root');
    expect(mark).toBeGreaterThan(0);
    const atImport = packagesOf(urls.slice(0, mark));
    // The hook works: the root's own eager dependencies are seen, and the SDK once it is imported.
    expect(atImport).toContain('zod');
    expect(packagesOf(urls.slice(mark))).toContain('@modelcontextprotocol/sdk');
    expect(atImport.filter((name) => LAZY.test(name))).toEqual([]);
  }, 120_000);
});
