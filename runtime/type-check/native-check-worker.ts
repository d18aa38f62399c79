/**
 * The check worker of the native checker (check-worker.ts's protocol): each check runs TypeScript 7's
 * `tsc` binary (native-check.ts); a program with a syntax error, and every check once the binary failed
 * to run, goes to TypeScript 5's checker in this thread (language-service.ts), loaded only then.
 * Why the binary was given up is written once to stderr.
 */
import { parentPort, resourceLimits } from 'node:worker_threads';
import type { Diagnostic } from '../../core/run-result.js';
import { TYPE_CHECK_STOPPED, type CheckWorkerToHost, type HostToCheckWorker } from './check-protocol.js';
import { createProgramChecker, type ProgramChecker } from './language-service.js';
import { createNativeProgramChecker, NativeCheckUnavailable, type NativeProgramChecker } from './native-check.js';
import { findNativeTsc } from './native-tsc.js';

const port = parentPort;
if (port === null) throw new Error('native-check-worker.ts runs as a worker thread of the type checker');
const send = (message: CheckWorkerToHost): void => port.postMessage(message);
const native = new Map<string, NativeProgramChecker>();
const fallback = new Map<string, ProgramChecker>();
let nativeFailure: string | undefined = (() => {
  const tsc = findNativeTsc();
  return tsc.ok ? undefined : tsc.reason;
})();

function withTypeScript5(outDir: string, code: string): Diagnostic[] {
  let checker = fallback.get(outDir);
  if (checker === undefined) {
    checker = createProgramChecker({ outDir });
    fallback.set(outDir, checker);
  }
  checker.refreshDeclarations();
  return checker.check(code);
}

async function check({ outDir, code, timeoutMs }: HostToCheckWorker, startedAt: number): Promise<Diagnostic[]> {
  const tsc = findNativeTsc();
  if (nativeFailure === undefined && tsc.ok) {
    try {
      let checker = native.get(outDir);
      if (checker === undefined) {
        checker = createNativeProgramChecker({
          outDir,
          tsc,
          // The compiler gets the limit this thread has (the pool's per-check heap limit).
          ...(resourceLimits.maxOldGenerationSizeMb === undefined ? {} : { memoryLimitMb: resourceLimits.maxOldGenerationSizeMb }),
          onCompiler: (pid) => send({ type: 'compiler', pid }),
        });
        native.set(outDir, checker);
      }
      const diagnostics = await checker.check(code, timeoutMs, startedAt);
      if (diagnostics !== undefined) return diagnostics;
    } catch (error) {
      if (!(error instanceof NativeCheckUnavailable)) throw error;
      nativeFailure = error.message;
      process.stderr.write(`agent-spaces: the native type checker failed (${error.message}); checking with TypeScript 5\n`);
    }
  }
  return withTypeScript5(outDir, code);
}

port.on('message', (request: HostToCheckWorker) => {
  // The limit runs from here: the native compiler loads its lib per check, as part of the check. The
  // compiler's own limit is measured from here too, so that it stops before the pool terminates this thread.
  const startedAt = Date.now();
  send({ type: 'started', id: request.id });
  check(request, startedAt).then(
    (diagnostics) => send({ type: 'result', id: request.id, diagnostics }),
    (error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      const message = `the type-check of this program failed (${reason}); simplify its types or run with check: false`;
      send({ type: 'result', id: request.id, diagnostics: [{ line: 1, column: 1, code: TYPE_CHECK_STOPPED, message }] });
    },
  );
});
send({ type: 'ready' });
