// Black-box runs of the CLI, as a user types them: `node bin/agent-spaces.js …` in a space folder.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeExampleSpace, REPO } from '../support/example-space.js';
import { makeTempDir } from '../support/temp-dir.js';

const BIN = path.join(REPO, 'bin/agent-spaces.js');

function cli(args: string[], options: { cwd: string; env?: Record<string, string>; input?: string }) {
  return execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    env: options.env ?? {},
    reject: false,
    timeout: 90_000,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' }),
  });
}

/**
 * The results of `task` for each item, in the items' order, at most `limit` running at once: the CLI
 * processes a case starts one after another when nothing in one depends on another (each is its own
 * process, in a folder of its own or reading only), a few at a time on a 2-core machine.
 */
async function eachAtOnce<const Items extends readonly unknown[], R>(
  items: Items,
  task: (item: Items[number]) => Promise<R>,
  limit = 3,
): Promise<{ -readonly [K in keyof Items]: R }> {
  const results: R[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) results[index] = await task(items[index]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results as { -readonly [K in keyof Items]: R };
}

// Every case starts the CLI (a Node process, often several): on a busy machine that takes its time.
describe('agent-spaces CLI', { timeout: 240_000 }, () => {
  let space: { root: string; env: Record<string, string> };

  beforeAll(async () => {
    space = await makeExampleSpace('cli');
    const build = await cli(['capabilities', 'build', '--json'], { cwd: space.root, env: space.env });
    expect(build.exitCode, build.stderr).toBe(0);
  }, 240_000);

  it('builds with progress per source on stderr and a JSON summary on stdout', async () => {
    const result = await cli(['capabilities', 'build', '--json'], { cwd: space.root, env: space.env });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/mcp:stations\s+3 functions/);
    const summary = JSON.parse(result.stdout) as { modules: string[]; functions: number; errors: unknown[]; written: number };
    expect(summary.modules).toEqual(expect.arrayContaining(['crm', 'get-weather', 'mcp-stations', 'notes', 'train-schedule', 'std-fs']));
    expect(summary.errors).toEqual([]);
    expect(summary.written).toBe(0); // nothing changed since beforeAll
  });

  it('prints a readable summary without --json', async () => {
    const result = await cli(['capabilities', 'build'], { cwd: space.root, env: space.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(
      /^\d+ sources \(0 built, \d+ unchanged, 0 failed\), \d+ modules, \d+ functions, \d+ warnings?, 0 files written/m,
    );
  });

  it('lists modules and signatures', async () => {
    const result = await cli(['capabilities', 'list'], { cwd: space.root, env: space.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('@capabilities/train-schedule');
    expect(result.stdout).toContain(
      'getTrainDetails(params: { trainId: string }): Promise<{ id: string; operator: string; stops: string[] }>',
    );
    expect(result.stdout).toMatch(/createTicket\(.*\[requires approval\]/);
    const json = await cli(['capabilities', 'list', '--json'], { cwd: space.root, env: space.env });
    const catalog = JSON.parse(json.stdout) as { functions: { id: string }[] };
    expect(catalog.functions.map((f) => f.id)).toContain('mcp-stations.stationInfo');
  });

  it('refuses a bad config with every problem listed, exit code 2, and writes nothing', async () => {
    const root = await makeTempDir('cli-bad');
    await writeFile(
      path.join(root, 'agent-spaces.config.json'),
      JSON.stringify({ capabilities: 'x', mcpServers: { gh: { url: 'https://${NO_SUCH_HOST}/mcp' } }, outDir: 5 }),
    );
    const missingVariable = await makeTempDir('cli-bad-env');
    await writeFile(
      path.join(missingVariable, 'agent-spaces.config.json'),
      JSON.stringify({ mcpServers: { gh: { url: 'https://${NO_SUCH_HOST}/mcp' } } }),
    );
    const [result, second] = await eachAtOnce([root, missingVariable], (cwd) => cli(['capabilities', 'build'], { cwd }));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('capabilities');
    expect(result.stderr).toContain('outDir');
    expect(existsSync(path.join(root, '.agent-spaces'))).toBe(false);
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain('mcpServers.gh.url: environment variable NO_SUCH_HOST is not set');
    expect(existsSync(path.join(missingVariable, '.agent-spaces'))).toBe(false);
  });

  it('runs the morning-trains example and prints its result', async () => {
    const result = await cli(['run', path.join(REPO, 'examples/programs/morning-trains.ts'), '--json'], {
      cwd: space.root,
      env: space.env,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as { success: boolean; result: { morningTrains: number; destinations: string[] }; calls: number };
    expect(run.success).toBe(true);
    expect(run.result.morningTrains).toBe(5);
    expect(run.result.destinations).toEqual(['Harbor', 'Airport', 'Northgate']);
    expect(run.calls).toBe(8);
    const notes = JSON.parse(await readFile(space.env.AGENT_SPACES_NOTES_FILE as string, 'utf8')) as { title: string }[];
    expect(notes.map((n) => n.title)).toContain('Morning Trains');
  });

  it('runs the CRM example: approved with --approve all, refused with --approve none and headless', async () => {
    const program = path.join(REPO, 'examples/programs/crm-ticket.ts');
    const approved = await cli(['run', program, '--json', '--approve', 'all'], { cwd: space.root, env: space.env });
    expect(approved.exitCode, approved.stderr).toBe(0);
    expect((JSON.parse(approved.stdout) as { result: { approved: boolean; ticketId: string } }).result).toMatchObject({
      approved: true,
      ticketId: 't-001',
    });
    const denied = await cli(['run', program, '--json', '--approve', 'none'], { cwd: space.root, env: space.env });
    expect((JSON.parse(denied.stdout) as { result: { approved: boolean } }).result.approved).toBe(false);
    const headless = await cli(['run', program], { cwd: space.root, env: space.env });
    expect(headless.exitCode).toBe(0);
    expect(headless.stderr).toContain('the ticket was not approved');
  });

  it('reads a program from stdin and reports a runtime error at its TypeScript line', async () => {
    const code = `import { getTrainDetails } from '@capabilities/train-schedule';\n\nconst id: string = 'nope';\nconst details = await getTrainDetails({ trainId: id });\nexport default details;\n`;
    const result = await cli(['run', '-'], { cwd: space.root, env: space.env, input: code });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/-:4(:\d+)?: .*no train with id "nope"/);
  });

  it('reports type errors with line numbers before running anything', async () => {
    const code = `import { trainSchedule } from '@capabilities/train-schedule';\nconst trips = await trainSchedule.getSchedule({ station: 42 });\nexport default trips;\n`;
    const result = await cli(['run', '-', '--json'], { cwd: space.root, env: space.env, input: code });
    expect(result.exitCode).toBe(1);
    const run = JSON.parse(result.stdout) as { error: { code: string; diagnostics: { line: number }[] }; calls: number };
    expect(run.error.code).toBe('TYPE_CHECK_FAILED');
    expect(run.error.diagnostics[0]?.line).toBe(2);
    expect(run.calls).toBe(0);
  });

  it('suggests the module a mistyped import meant, at the type-check and at run time', async () => {
    const code = "import { getSchedule } from '@capabilities/train-schedul';\nexport default await getSchedule({ station: 'Central' });\n";
    const [checked, unchecked] = await eachAtOnce([[], ['--no-check']], (flags) =>
      cli(['run', '-', ...flags], { cwd: space.root, env: space.env, input: code }),
    );
    expect(checked.exitCode).toBe(1);
    expect(checked.stderr).toContain(
      "-:1:29 TS2307: Cannot find module '@capabilities/train-schedul' or its corresponding type declarations. Did you mean '@capabilities/train-schedule'?",
    );
    expect(unchecked.exitCode).toBe(1);
    expect(unchecked.stderr).toContain(
      'module "@capabilities/train-schedul" is not in the build (did you mean "@capabilities/train-schedule"?)',
    );
  });

  it('says what is wrong with its arguments', async () => {
    const noFolder = path.join(space.root, 'no-such-folder');
    // With --cwd, the config's path is taken from there (a program's path is the shell's): the message says so.
    const calls: [string[], { cwd: string; input?: string }][] = [
      [['frobnicate'], { cwd: space.root }],
      [['run', 'does-not-exist.ts'], { cwd: space.root }],
      [['capabilities', 'build', '--config', 'no-such.config.json'], { cwd: space.root }],
      [['run', '-', '--cwd', space.root, '--config', 'no-such.config.json'], { cwd: REPO, input: 'export default 1' }],
      [['task', '--replay', 'no-such-trace.jsonl'], { cwd: space.root }],
      [['run', '.'], { cwd: space.root }],
      [['capabilities', 'build', '--cwd', noFolder], { cwd: space.root }],
      [['--help'], { cwd: space.root }],
    ];
    const [unknown, missing, noConfig, fromElsewhere, noTrace, folder, badCwd, help] = await eachAtOnce(calls, ([args, options]) =>
      cli(args, options),
    );
    expect(unknown?.exitCode).toBe(2);
    expect(unknown?.stderr).toContain('unknown command "frobnicate"');
    expect(missing?.exitCode).toBe(2);
    expect(missing?.stderr).toContain('cannot read program "does-not-exist.ts": no such file (ENOENT)');
    expect(missing?.stderr).toContain('Run "agent-spaces run --help" for its usage and options.');
    expect(noConfig?.exitCode).toBe(2);
    expect(noConfig?.stderr).toContain(`--config no-such.config.json: no file at ${path.join(space.root, 'no-such.config.json')}\n`);
    expect(fromElsewhere?.exitCode).toBe(2);
    expect(fromElsewhere?.stderr).toContain(`no file at ${path.join(space.root, 'no-such.config.json')} (the path is relative to --cwd)`);
    expect(noTrace?.exitCode).toBe(2);
    expect(noTrace?.stderr).toContain('--replay no-such-trace.jsonl: no such file');
    expect(folder?.exitCode).toBe(2);
    expect(folder?.stderr).toContain('cannot read program ".": it is a folder, not a file (EISDIR)');
    expect(badCwd?.exitCode).toBe(2);
    expect(badCwd?.stderr).toContain(`--cwd ${noFolder}: no such folder`);
    expect(existsSync(noFolder)).toBe(false);
    expect(help?.exitCode).toBe(0);
    expect(help?.stdout).toContain('agent-spaces capabilities build');
  });

  it('refuses arguments and options that the command does not take, instead of ignoring them', async () => {
    const cases: [string[], string][] = [
      [['capabilities', 'build', 'extra'], 'unexpected argument "extra"'],
      [['capabilities', 'build', '--timeout', '5'], '--timeout is not an option of "capabilities build"'],
      [['capabilities', 'list', '--force'], '--force is not an option of "capabilities list"'],
      [['run', '-', '--check'], 'unknown option --check\nRun "agent-spaces run --help" for its usage and options.'],
      [['run', '-', '--config'], '--config needs a value: --config <file>'],
      [['capabilities', 'build', '--json=yes'], '--json takes no value\nRun "agent-spaces capabilities build --help"'],
      [
        ['capabilities', 'biuld'],
        'unknown subcommand "capabilities biuld" (build, sample, list or save)\nRun "agent-spaces capabilities --help"',
      ],
      [['agents', 'serve', 'no-such-config.ts'], 'agents serve: no file or folder at'],
      [['demo', 'extra'], 'unexpected argument "extra"'],
      [['serve', '--approve', 'all'], '--approve is not an option of "serve"'],
      [['studio', '--eval-dir', 'no-such-runs'], '--eval-dir no-such-runs: no such folder'],
      [['run', '-', '--eval-dir', '.'], '--eval-dir is not an option of "run"'],
    ];
    const results = await eachAtOnce(cases, ([args]) => cli(args, { cwd: space.root, env: space.env, input: 'export default 1' }));
    for (const [index, [args, message]] of cases.entries()) {
      expect(results[index]?.exitCode, args.join(' ')).toBe(2);
      expect(results[index]?.stderr, args.join(' ')).toContain(message);
    }
  });

  it('says in its text output why each failed source failed, including those that never started', async () => {
    const root = await makeTempDir('cli-failed-sources');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['missing.json', 'plain.json'] }));
    await writeFile(path.join(root, 'plain.json'), JSON.stringify({ name: 'plain_tool', parameters: { type: 'object', properties: {} } }));
    const result = await cli(['capabilities', 'build'], { cwd: root });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/missing\.json +FAILED: capability file not found: missing\.json/);
    expect(result.stderr).toMatch(
      /plain\.json +FAILED: plain\.json: tool "plain_tool" has no "implementation", so nothing can perform its calls: add "implementation": "\.\/impl\/plain\.ts"/,
    );
    expect(result.stderr).toContain('export async function plain_tool(params)');
    expect(result.stdout).toMatch(/2 failed/);
  });

  it("answers --help for every command and lists a group's subcommands", async () => {
    const commands = ['capabilities build', 'capabilities list', 'run', 'serve', 'task', 'agent serve', 'agents serve', 'demo'];
    const [group, version, ...helps] = await eachAtOnce(
      [['capabilities'], ['--version'], ...commands.map((command) => [...command.split(' '), '--help'])],
      (args) => cli([...args], { cwd: space.root }),
    );
    for (const [index, command] of commands.entries()) {
      expect(helps[index]?.exitCode, command).toBe(0);
      expect(helps[index]?.stdout, command).toContain(`agent-spaces ${command}`);
    }
    expect(group?.exitCode).toBe(2);
    expect(group?.stdout).toMatch(/agent-spaces capabilities build[\s\S]*agent-spaces capabilities list/);
    expect(version?.stdout).toMatch(/^\d+\.\d+\.\d+\n?$/);
  });

  it('reports a failed source once, not again among the warnings', async () => {
    const root = await makeTempDir('cli-failed-source');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['broken.json'] }));
    await writeFile(path.join(root, 'broken.json'), '{"name": ');
    const result = await cli(['capabilities', 'build'], { cwd: root });
    expect(result.exitCode).toBe(1);
    expect(result.stderr.match(/not valid JSON/g)).toHaveLength(1);
    expect(result.stdout).toMatch(/1 failed/);
    // Nor counted as a warning: the summary's count is of the warnings printed (none here).
    expect(result.stderr).not.toContain('warning:');
    expect(result.stdout).toMatch(/, 0 warnings, /);
  });

  it('ends quietly when the reader of its output stops early (| head), with the exit code of the command', async () => {
    // Our end of the pipe is closed before the CLI has written a byte, so its first write meets EPIPE.
    const child = spawn(process.execPath, [BIN, 'capabilities', 'list'], {
      cwd: space.root,
      env: { ...process.env, ...space.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });

  it('serve on stdio ends when its input is already at its end (< /dev/null), with exit code 0', async () => {
    const result = await cli(['serve'], { cwd: space.root, env: space.env });
    expect(result.stderr).toContain('serving MCP on stdio');
    expect(result.exitCode).toBe(0);
  });

  it('says which port is taken when a server cannot listen, exit code 2', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    try {
      for (const args of [
        ['serve', '--http', String(port)],
        ['studio', '--port', String(port)],
      ]) {
        const result = await cli(args, { cwd: space.root, env: space.env });
        expect(result.stderr, args.join(' ')).toContain(
          `agent-spaces: cannot listen on 127.0.0.1:${port}: another program is using that port; choose another one (0 picks any free port)`,
        );
        expect(result.exitCode, args.join(' ')).toBe(2);
      }
    } finally {
      taken.close();
    }
  });
});
