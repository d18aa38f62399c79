// Two real eval run folders for the studio's eval pane, made by the harness the CLI uses
// (`agent-spaces eval tau2-retail --tasks 0-2 --out …`) with the oracle model (no network): "before"
// with the direct and code arms, "after" with all three arms, so a comparison has arms on one side only.
import path from 'node:path';
import { runEval, type EvalRun } from '../../eval/index.js';

export const EVAL_TASKS = '0-2';

export interface EvalRuns {
  before: EvalRun;
  after: EvalRun;
}

/** Runs the τ² retail tasks 0–2 twice into `<evalDir>/before` and `<evalDir>/after`. */
export async function makeEvalRuns(evalDir: string): Promise<EvalRuns> {
  const before = await runEval({ suite: 'tau2-retail', arms: ['direct', 'code'], tasks: EVAL_TASKS, out: path.join(evalDir, 'before') });
  const after = await runEval({ suite: 'tau2-retail', tasks: EVAL_TASKS, out: path.join(evalDir, 'after') });
  return { before, after };
}
