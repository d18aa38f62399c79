/**
 * `@capabilities/task-storage` reads back the results a planner task stored, for that task's runs only:
 * another task's refs, forged paths and traversals are refused even when the file exists, and a stored
 * file the program changed behind the host's back is refused, not parsed by the host.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSpace, type Space } from '../../space/index.js';
import { makeTempDir } from '../support/temp-dir.js';

describe('@capabilities/task-storage', () => {
  let space: Space;
  let root: string;
  beforeAll(async () => {
    root = await makeTempDir('attack-storage');
    // The workspace is the space's folder, so std fs reaches the run folder where the planner stores results.
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], std: { fs: { root: '.' } } }));
    space = await createSpace({ cwd: root, isolation: 'worker' });
  }, 60_000);
  afterAll(async () => {
    await space?.close();
  });

  const storeResult = async (taskId: string, value: unknown): Promise<{ ref: string; chars: number }> => {
    const dir = path.join(space.config.outDir, 'runs', taskId, 'results');
    await mkdir(dir, { recursive: true });
    const ref = path.join(dir, 'step-1-vault-list.json');
    const json = JSON.stringify(value);
    await writeFile(ref, json);
    return { ref, chars: json.length };
  };

  it("refuses another task's result, a forged path and a traversal, even when the file exists", async () => {
    const mine = await storeResult('task-mine', { rows: [1, 2, 3] });
    const theirs = await storeResult('task-theirs', { secret: 'their rows' });
    const close = space.taskStorage.open(
      'task-mine:1:run',
      new Map([[mine.ref, { ref: mine.ref, label: 'vault.list', step: 1, chars: mine.chars }]]),
    );
    try {
      const code = [
        "import { read } from '@capabilities/task-storage';",
        `const refs = [${JSON.stringify(theirs.ref)}, ${JSON.stringify(`${mine.ref}/../../../task-theirs/results/step-1-vault-list.json`)}, '/etc/passwd', ${JSON.stringify(path.relative(root, theirs.ref))}];`,
        'const outcomes = await Promise.all(refs.map((ref) => read({ ref }).then(() => "read", (error: { code: string }) => error.code)));',
        `return { outcomes, mine: (await read({ ref: ${JSON.stringify(mine.ref)}, path: 'rows' })).value };`,
      ].join('\n');
      const result = await space.run(code, { runId: 'task-mine:1:run', check: false });
      expect(result).toMatchObject({
        success: true,
        result: { outcomes: ['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN'], mine: [1, 2, 3] },
      });
    } finally {
      close();
    }
  });

  // A program whose std fs workspace holds the run folder can rewrite its own stored result (an 8 MB JSON
  // array, within its write quota); a hundred parallel reads must not make the host parse it a hundred
  // times. The file must still be the size the host wrote, and a run's reads of one result share one parse.
  it('a stored result the program grew through std fs is refused, not parsed by the host', async () => {
    const stored = await storeResult(
      'task-grow',
      Array.from({ length: 100 }, (_, index) => index),
    );
    const close = space.taskStorage.open(
      'task-grow:1:run',
      new Map([[stored.ref, { ref: stored.ref, label: 'vault.list', step: 1, chars: stored.chars }]]),
    );
    try {
      const relative = path.relative(root, stored.ref);
      const code = [
        "import { writeFile, appendFile } from '@capabilities/std-fs';",
        "import { read } from '@capabilities/task-storage';",
        `const file = ${JSON.stringify(relative)};`,
        "await writeFile({ path: file, content: '[0' });",
        "const chunk = ',0'.repeat(400_000);",
        'for (let i = 0; i < 10; i++) await appendFile({ path: file, content: chunk });',
        "await appendFile({ path: file, content: ']' });",
        'const outcomes = await Promise.all(Array.from({ length: 100 }, () => read({ ref: ' +
          JSON.stringify(stored.ref) +
          ', limit: 1 }).then((page) => String(page.total), (error: { code: string }) => error.code)));',
        'return [...new Set(outcomes)];',
      ].join('\n');
      const result = await space.run(code, { runId: 'task-grow:1:run', check: false, limits: { timeoutMs: 60_000 } });
      expect(result).toMatchObject({ success: true, result: ['FORBIDDEN'] });
    } finally {
      close();
    }
  }, 90_000);
});
