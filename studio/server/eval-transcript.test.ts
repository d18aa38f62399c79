// A transcript file is hostile input: whatever shapes it holds become steps in order, long texts are cut.
import { describe, expect, it } from 'vitest';
import { MAX_ENTRY_TEXT, MAX_TRANSCRIPT_ENTRIES, transcriptEntries } from './eval-transcript.js';

describe('transcriptEntries', () => {
  it('turns chat messages into ordered steps: a program from execute_code, a search, a result', () => {
    const { entries, truncated } = transcriptEntries([
      { role: 'system', content: 'policy' },
      { role: 'user', content: 'the task' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { function: { name: 'search_tools', arguments: '{"query":"x"}' } },
          { function: { name: 'execute_code', arguments: JSON.stringify({ code: 'export default 1;' }) } },
        ],
      },
      { role: 'tool', content: 'Result: 1\n(0 capability calls, 3 ms)' },
      { role: 'tool', content: 'Error: no such order' },
      { role: 'assistant', content: 'done' },
    ]);
    expect(entries.map((entry) => entry.kind)).toEqual(['system', 'user', 'search', 'code', 'code-result', 'tool-result', 'assistant']);
    expect(entries[3]).toEqual({ kind: 'code', title: 'execute_code', text: 'export default 1;' });
    expect(entries[5]?.ok).toBe(false);
    expect(truncated).toBe(false);
  });

  it('keeps unknown shapes as events, arguments that are not JSON as written, and cuts long texts and transcripts', () => {
    const { entries, truncated } = transcriptEntries([
      42,
      null,
      { role: 'hacker', content: { nested: true } },
      { role: 'assistant', tool_calls: 'not a list' },
      { role: 'assistant', tool_calls: [{ function: { name: 'get_order', arguments: '{broken' } }, 'junk'] },
      { type: 'mystery', taskId: 't', secret: 'x' },
      { role: 'user', content: 'y'.repeat(MAX_ENTRY_TEXT + 5) },
    ]);
    expect(entries.map((entry) => entry.kind)).toEqual(['event', 'event', 'event', 'tool-call', 'tool-call', 'event', 'user']);
    expect(entries[3]).toMatchObject({ title: 'get_order', text: '{broken' });
    expect(entries[4]).toMatchObject({ title: 'a tool' });
    expect(entries[5]).toMatchObject({ title: 'mystery', text: JSON.stringify({ secret: 'x' }, null, 2) });
    expect(entries[6]?.text).toMatch(/… \(5 more characters\)$/);
    expect(truncated).toBe(true);
    expect(
      transcriptEntries(Array.from({ length: MAX_TRANSCRIPT_ENTRIES + 3 }, () => ({ role: 'user', content: 'x' }))).entries,
    ).toHaveLength(MAX_TRANSCRIPT_ENTRIES);
  });

  it("reads the planner's events: the task, its calls, program outcomes and the answer", () => {
    const { entries } = transcriptEntries([
      { type: 'task-start', task: 'do it' },
      {
        type: 'model-reply',
        reply: { message: { content: null, tool_calls: [{ function: { name: 'run_code', arguments: '{"code":"export default 2;"}' } }] } },
      },
      { type: 'code-run', ok: true, calls: 2, durationMs: 5 },
      { type: 'tool-call', name: 'retail.getOrderDetails', ok: false, durationMs: 1, error: { code: 'X', message: 'no' } },
      { type: 'task-finish', success: true, summary: 'all done' },
    ]);
    expect(entries.map((entry) => entry.kind)).toEqual(['user', 'code', 'code-result', 'tool-result', 'answer']);
    expect(entries[3]).toMatchObject({ ok: false, title: 'retail.getOrderDetails' });
    expect(entries[4]).toEqual({ kind: 'answer', text: 'all done', ok: true });
  });
});
