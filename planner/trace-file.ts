import { appendFileSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AgentSpacesError } from '../core/index.js';
import type { ModelReply } from './model-client.js';
import type { PlannerEvent } from './planner-event.js';

/** A trace file: one JSON event a line. Lines are appended as they happen, so a crash leaves what it had. */
export function createTraceWriter(file: string): (event: PlannerEvent) => void {
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  appendFileSync(file, '');
  return (event) => appendFileSync(file, `${JSON.stringify(event)}\n`);
}

export interface RecordedTask {
  task: string;
  taskId: string;
  model: string;
  replies: ModelReply[];
  events: PlannerEvent[];
}

/** Reads a trace for replay: the task, the model and the model's replies, in order. */
export async function readTrace(file: string): Promise<RecordedTask> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new AgentSpacesError(
      'TRACE_UNREADABLE',
      `cannot read the trace "${file}": ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { cause: error },
    );
  }
  const events: PlannerEvent[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line) as PlannerEvent);
    } catch (error) {
      throw new AgentSpacesError('TRACE_INVALID', `the trace "${file}" has a line that is not JSON (line ${index + 1})`, { cause: error });
    }
  }
  const start = events.find((event) => event.type === 'task-start');
  if (!start || start.type !== 'task-start') {
    throw new AgentSpacesError('TRACE_INVALID', `the trace "${file}" has no task-start event: was it written by executeTask({ trace })?`);
  }
  const replies = events.flatMap((event) => (event.type === 'model-reply' && event.taskId === start.taskId ? [event.reply] : []));
  return { task: start.task, taskId: start.taskId, model: start.model, replies, events };
}
