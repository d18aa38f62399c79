export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';

export interface RunLog {
  level: LogLevel;
  message: string;
}

/** A type error found before the run, in the program's own coordinates (1-based). */
export interface Diagnostic {
  line: number;
  column: number;
  code: number;
  message: string;
}

export interface RunError {
  /** `TypeError`, `ToolCallError`, `SandboxTimeoutError`, … */
  name: string;
  message: string;
  /** `TYPE_CHECK_FAILED`, `RUNTIME_ERROR`, `TIMEOUT`, `MEMORY_LIMIT`, `OUTPUT_LIMIT`, a ToolCallErrorCode, … */
  code: string;
  /** Line and column in the TypeScript the model wrote (1-based). */
  line?: number;
  column?: number;
  stack?: string;
  capability?: string;
  function?: string;
  diagnostics?: Diagnostic[];
}

/** The outcome of one code run. A run never throws for faults of the model's code; it reports them here. */
export interface RunResult {
  success: boolean;
  result: unknown;
  logs: RunLog[];
  error?: RunError;
  timedOut: boolean;
  /** Capability calls the run made. */
  calls: number;
  durationMs: number;
  /** The sandbox engine that ran the program (`isolated-vm`, `quickjs`) and why it was chosen. */
  engine?: { name: string; reason: string };
}
