/**
 * Every command of the CLI, in the order the help lists them. A command is one module beside this file
 * (`<name>.command.ts`, see cli/command.ts) and one line here.
 */
import type { Command } from '../command.js';
import { command as capabilitiesBuild } from './capabilities-build.command.js';
import { command as capabilitiesSample } from './capabilities-sample.command.js';
import { command as capabilitiesList } from './capabilities-list.command.js';
import { command as run } from './run.command.js';
import { command as doctor } from './doctor.command.js';
import { command as worker } from './worker.command.js';
import { command as storePrune } from './store-prune.command.js';
import { command as approvalsList } from './approvals-list.command.js';
import { command as approvalsApprove } from './approvals-approve.command.js';
import { command as approvalsDeny } from './approvals-deny.command.js';
import { command as trace } from './trace.command.js';
import { command as serve } from './serve.command.js';
import { command as task } from './task.command.js';
import { command as agentServe } from './agent-serve.command.js';
import { command as agentsServe } from './agents-serve.command.js';
import { command as studio } from './studio.command.js';
import { command as demo } from './demo.command.js';
import { command as evalSuite } from './eval.command.js';

export const COMMANDS: readonly Command[] = [
  capabilitiesBuild,
  capabilitiesSample,
  capabilitiesList,
  run,
  doctor,
  worker,
  storePrune,
  approvalsList,
  approvalsApprove,
  approvalsDeny,
  trace,
  serve,
  task,
  agentServe,
  agentsServe,
  studio,
  demo,
  evalSuite,
];
