// The real @octokit/rest from the npm registry, installed into this file's own folder, as an SDK of a
// space: nested namespaces (octokit.rest.issues.get), an instance built from config with a token,
// results unwrapped from Octokit's response envelope, against a local server that answers like GitHub.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuildResult } from '../../compiler/index.js';
import { resolveConfig, type ResolvedConfig } from '../../config/index.js';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createSdkSource } from './index.js';
import { startGitHubServer, type GitHubServer } from './test-support/github-server.js';

const OCTOKIT = '@octokit/rest@22.0.1';
const TOKEN = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

describe('source kind sdk: @octokit/rest from the npm registry', () => {
  let root: string;
  let server: GitHubServer;
  let config: ResolvedConfig;
  let space: Space;
  let build: BuildResult;

  beforeAll(async () => {
    root = await makeTempDir('sdk-octokit');
    await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'space', private: true }));
    // Installed once for the whole file, into its own folder (never the repository's node_modules).
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    await promisify(execFile)(npm, ['install', '--prefix', root, '--no-audit', '--no-fund', '--loglevel=error', OCTOKIT], { cwd: root });
    server = await startGitHubServer();
    config = resolveConfig(
      {
        capabilities: [],
        sdks: {
          github: {
            package: '@octokit/rest',
            create: { export: 'Octokit', args: [{ auth: '${GITHUB_TOKEN}', baseUrl: server.origin, userAgent: 'agent-spaces-test' }] },
            path: 'rest',
            include: ['issues.get', 'issues.listForRepo', 'issues.create'],
            requireApproval: ['issues.create'],
            denyArguments: ['baseUrl', 'headers', 'request', 'mediaType'],
          },
        },
      },
      { root, env: { GITHUB_TOKEN: TOKEN } },
    );
    space = await createSpace({
      config,
      sources: [createSdkSource()],
      isolation: 'in-process',
      approvalHandler: (request) => request.function === 'issuesCreate',
    });
    build = await space.build({ force: true });
  }, 300_000);

  afterAll(async () => {
    await space?.close();
    await server?.close();
  });

  it("builds the chosen methods of octokit.rest's namespaces, typed with GitHub's schema names", async () => {
    expect(build.errors).toEqual([]);
    const github = build.manifest.capabilities.find((spec) => spec.module === 'github');
    expect(github?.functions.map((fn) => [fn.name, fn.toolName, fn.requiresApproval === true])).toEqual([
      ['issuesCreate', 'issues.create', true],
      ['issuesGet', 'issues.get', false],
      ['issuesListForRepo', 'issues.listForRepo', false],
    ]);
    const dts = await readFile(path.join(config.outDir, 'capabilities', 'github', 'index.d.ts'), 'utf8');
    expect(dts).toContain('export type IssuesGetResult = Issue;\n');
    expect(dts).toContain('export type IssuesListForRepoResult = Issue[];\n');
    expect(dts).toMatch(/export interface Issue \{\n[^]*\n {2}user: NullableSimpleUser \| null;\n/);
    expect(dts).toContain('export interface SimpleUser {\n');
    // The arguments a program may not choose are `never`; the request's own parameters are there.
    expect(dts).toMatch(
      /export interface IssuesGetParams \{\n[^}]*baseUrl\?: never;\n[^}]*owner: string;\n {2}repo: string;\n {2}issue_number: number;\n/,
    );
    // Three of Octokit's ~1,000 methods: the declarations stay small.
    expect(dts.length).toBeLessThan(40_000);
    expect(dts).not.toContain(TOKEN);
  });

  it('calls octokit.rest.issues.get from a sandboxed program: the token goes to the server, the issue (not the envelope) to the program', async () => {
    const before = server.requests.length;
    const result = await space.run(
      `import { issuesGet, issuesListForRepo } from '@capabilities/github';\n` +
        `const issue = await issuesGet({ owner: 'acme', repo: 'rockets', issue_number: 7 });\n` +
        `const open = await issuesListForRepo({ owner: 'acme', repo: 'rockets', state: 'open', per_page: 2 });\n` +
        `export default { title: issue.title, login: issue.user?.login, labels: issue.labels.map((label) => typeof label === 'string' ? label : label.name), listed: open.map((item) => item.number) };\n`,
    );
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.result).toEqual({ title: 'Issue 7', login: 'octocat', labels: ['bug'], listed: [1, 2] });
    const seen = server.requests.slice(before);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /repos/acme/rockets/issues/7',
      'GET /repos/acme/rockets/issues?state=open&per_page=2',
    ]);
    expect(seen.every((request) => request.authorization === `token ${TOKEN}`)).toBe(true);
  });

  it('performs an approved call that creates an issue', async () => {
    const result = await space.run(
      `import { issuesCreate } from '@capabilities/github';\nconst created = await issuesCreate({ owner: 'acme', repo: 'rockets', title: 'Fuel gauge reads low' });\nexport default [created.number, created.title];\n`,
    );
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.result).toEqual([42, 'Fuel gauge reads low']);
    expect(JSON.parse(server.requests.at(-1)?.body ?? '{}')).toEqual({ title: 'Fuel gauge reads low' });
  });

  it("reports GitHub's 404 to the program as TOOL_FAILED with GitHub's message, without the token", async () => {
    const result = await space.run(
      `import { issuesGet } from '@capabilities/github';\nlet failure = '';\ntry { await issuesGet({ owner: 'acme', repo: 'rockets', issue_number: 999 }); } catch (error) { failure = error.code + ': ' + error.message; }\nexport default failure;\n`,
      { check: false },
    );
    expect(result.result).toMatch(/^TOOL_FAILED: .*Not Found/);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('never lets a program send the client elsewhere: baseUrl is refused at the bridge, before any request', async () => {
    const before = server.requests.length;
    const result = await space.run(
      `import { issuesGet } from '@capabilities/github';\nlet code = '';\ntry { await issuesGet({ owner: 'acme', repo: 'rockets', issue_number: 1, baseUrl: 'http://attacker.example' }); } catch (error) { code = error.code; }\nexport default code;\n`,
      { check: false },
    );
    expect(result.result).toBe('INVALID_ARGUMENTS');
    expect(server.requests.length).toBe(before);
  });

  it('labels the token in create.args as a secret', () => {
    expect(createSdkSource().secrets(config)).toContainEqual({ value: TOKEN, label: 'sdk github create.args[0].auth', strength: 'strong' });
  });
});
