/** The shapes the studio's API answers with (what the panes read of them). */
import type { TaskRunView, TimelineCall } from '../server/wire-types.js';

export type { TaskRunView, TimelineCall };

export interface FunctionView {
  id: string;
  name: string;
  toolName: string;
  description: string;
  signature: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  requiresApproval: boolean;
  rateLimit?: { requests: number; period: string };
  annotations?: Record<string, unknown>;
}

export interface ModuleView {
  module: string;
  namespace: string;
  description: string;
  source: { kind: string; path?: string; server?: string; exportName?: string };
  config: { requiresApproval?: boolean; rateLimit?: { requests: number; period: string } };
  declarations: string;
  functions: FunctionView[];
}

export interface BuildView {
  at: string;
  durationMs: number;
  functions: number;
  sources: { source: string; status: string; modules: string[]; functions: number; message?: string }[];
  warnings: { source: string; capability?: string; function?: string; pointer?: string; message: string }[];
  errors: { source: string; message: string }[];
}

export interface CapabilitiesView {
  root: string;
  outDir: string;
  build: BuildView;
  modules: ModuleView[];
}

export type JsonSchema = { [key: string]: unknown };

export interface Diagnostic {
  line: number;
  column: number;
  code: number;
  message: string;
}

export interface RunResultView {
  success: boolean;
  result: unknown;
  logs: { level: string; message: string }[];
  error?: { name: string; message: string; code: string; line?: number; column?: number; diagnostics?: Diagnostic[] };
  timedOut: boolean;
  calls: number;
  durationMs: number;
}

export interface CodeRunView {
  runId: string;
  startedAt: string;
  code: string;
  result: RunResultView;
  calls: TimelineCall[];
  /** A run of the store: the worker that finished it and its attempts (more than one: taken over). */
  worker?: { executorId: string; attempts: number };
}

