/**
 * The check worker: a worker thread that keeps warm TypeScript projects (one per build output folder)
 * and type-checks programs in them. It runs with a heap limit, and the host stops it when a check
 * takes too long, so a pathological type costs this thread only.
 */
import { parentPort } from 'node:worker_threads';
import { TYPE_CHECK_STOPPED, type CheckWorkerToHost, type HostToCheckWorker } from './check-protocol.js';
import { createProgramChecker, type ProgramChecker } from './language-service.js';

/** Projects kept warm; the least recently used goes first. */
const MAX_PROJECTS = 4;

const port = parentPort;
if (port === null) throw new Error('check-worker.ts runs as a worker thread of the type checker');
const projects = new Map<string, ProgramChecker>();
const send = (message: CheckWorkerToHost): void => port.postMessage(message);

/** The warm project of `outDir`, and whether it was made (or its declarations read) just now. */
const projectOf = (outDir: string): { project: ProgramChecker; loaded: boolean } => {
  let project = projects.get(outDir);
  const made = project === undefined;
  if (project !== undefined) projects.delete(outDir);
  project ??= createProgramChecker({ outDir });
  projects.set(outDir, project);
  for (const stale of projects.keys()) {
    if (projects.size <= MAX_PROJECTS) break;
    projects.delete(stale);
  }
  const changed = project.refreshDeclarations();
  return { project, loaded: made || changed };
};

port.on('message', ({ id, outDir, code }: HostToCheckWorker) => {
  let diagnostics;
  try {
    const { project, loaded } = projectOf(outDir);
    // Only after loading is there time to leave out of the program's limit; otherwise a message
    // more per check would just cost the host a wake-up.
    if (loaded) send({ type: 'started', id });
    diagnostics = project.check(code);
  } catch (error) {
    // TypeScript itself can fail on a program (e.g. its stack overflows on a deep type).
    const reason = error instanceof Error ? error.message : String(error);
    diagnostics = [
      {
        line: 1,
        column: 1,
        code: TYPE_CHECK_STOPPED,
        message: `the type-check of this program failed (${reason}); simplify its types or run with check: false`,
      },
    ];
  }
  send({ type: 'result', id, diagnostics });
});
send({ type: 'ready' });
