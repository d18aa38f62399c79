/**
 * A planner task's code runs and direct calls share one session-state scope (`task:<taskId>`, or the
 * `session` option), against a scripted model server: a later step reads what an earlier program kept,
 * and another task sees none of it.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScriptedTask, toolAnswer } from '../../planner/test-support/run-scripted-task.js';
import { callReply } from '../../test/support/scripted-model-server.js';
import { makeTempDir } from '../../test/support/temp-dir.js';
import { createSpace, type Space } from '../index.js';

describe('@capabilities/session in planner tasks', () => {
  let space: Space;
  beforeAll(async () => {
    const root = await makeTempDir('session-planner');
    await writeFile(path.join(root, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    space = await createSpace({ cwd: root });
  }, 120_000);
  afterAll(async () => {
    await space?.close();
  });

  it("shares state between a task's steps, scoped to the task", async () => {
    const keep = "import { set } from '@capabilities/session';\nexport default (await set({ key: 'found', value: ['row-7'] })).keys;";
    const first = await runScriptedTask(
      space,
      [
        callReply('run_code', { code: keep }),
        callReply('call_tool', { name: 'session.get', arguments: { key: 'found' } }),
        callReply('finish', { summary: 'kept' }),
      ],
      { taskId: 'task-a' },
    );
    expect(first.result.success).toBe(true);
    expect(toolAnswer(first.server, 2, 'call_2_1')).toMatchObject({ ok: true, value: ['row-7'] });

    const other = await runScriptedTask(
      space,
      [callReply('call_tool', { name: 'session.get', arguments: { key: 'found' } }), callReply('finish', { summary: 'none' })],
      { taskId: 'task-b' },
    );
    expect(toolAnswer(other.server, 1, 'call_1_1')).toMatchObject({ ok: true, value: null });
    expect(await space.callTool('session.get', { key: 'found' }, { session: 'task:task-a' })).toEqual(['row-7']);

    // A caller may give tasks one scope of its own: a later task then reads what an earlier one kept.
    await space.callTool('session.set', { key: 'found', value: 'from before' }, { session: 'conversation-1' });
    const shared = await runScriptedTask(
      space,
      [callReply('call_tool', { name: 'session.get', arguments: { key: 'found' } }), callReply('finish', { summary: 'shared' })],
      { taskId: 'task-c', session: 'conversation-1' },
    );
    expect(toolAnswer(shared.server, 1, 'call_1_1')).toMatchObject({ ok: true, value: 'from before' });
  }, 120_000);
});
