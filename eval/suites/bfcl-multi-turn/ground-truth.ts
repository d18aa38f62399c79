// BFCL's ground truth as the suite's calls: each Python call string parsed, its arguments named.
import type { EvalCall } from 'agent-spaces';
import { parameterNames } from './bfcl-world.js';
import { namedArguments, parseCall } from './call-syntax.js';

/** One line of BFCL's possible_answer file: the ground-truth calls per user turn. */
export interface BfclAnswer {
  id: string;
  ground_truth: string[][];
}

/** A task's ground-truth calls, parsed from BFCL's Python call strings (all turns, in order). */
export function callsOf(answer: BfclAnswer): EvalCall[] {
  return answer.ground_truth.flat().map((text) => {
    try {
      const parsed = parseCall(text);
      return { name: parsed.name, arguments: namedArguments(parsed, parameterNames(parsed.name)) };
    } catch (error) {
      throw new Error(`BFCL task ${answer.id}: cannot read the ground-truth call ${text}: ${(error as Error).message}`);
    }
  });
}
