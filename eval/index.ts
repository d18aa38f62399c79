export { runEval, readResults, EVAL_BUDGET, ORACLE_PRICED_AS } from './run-eval.js';
export type { EvalRun, RunEvalOptions, RunSettings, TaskResultRecord } from './run-eval.js';
export { buildReport } from './report.js';
export type { ArmSummary, EvalReport, GoalCheck, TaskRow } from './report.js';
export { ARMS } from './arms/arm-types.js';
export type { Arm, ArmModel, ArmOutcome } from './arms/arm-types.js';
export { BUNDLED_SUITES, defineSuite, loadSuite, resolveSuiteDir, selectTasks } from './suite.js';
export type { CallOutcome, CheckResult, EvalCall, EvalSuite, EvalTask } from './suite.js';
export { suiteEnvironment } from './suite-environment.js';
export type { SuiteEnvironment } from './suite-environment.js';
export { ORACLE_MODEL, startOracleServer } from './oracle/oracle-server.js';
export type { OracleServer } from './oracle/oracle-server.js';
export { EvalError } from './eval-error.js';
export type { EvalErrorCode } from './eval-error.js';
export {
  EVAL_RUN_ID,
  EvalFileMissingError,
  evalRunDir,
  listEvalRunIds,
  readEvalRunFolder,
  readEvalSettings,
  readEvalTranscript,
} from './read-run.js';
export type { EvalRunFolder } from './read-run.js';
