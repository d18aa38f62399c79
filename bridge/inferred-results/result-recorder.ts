import path from 'node:path';
import {
  MAX_INFERRED_FILE_BYTES,
  inferredResultsFile,
  parseInferredResults,
  readSmallFile,
  type InferredResultSource,
  type InferredResultsFile,
  type JsonSchema,
  writeFileAtomic,
} from '../../core/index.js';
import { inferSchema, mergeSchemas } from './infer-schema.js';

/** Learns result types from observed values and keeps them in `<outDir>/inferred/<module>.json`. */
export interface ResultRecorder {
  /**
   * Takes one observed value into its function's type. The shape is learned at once; the store file
   * is written in the background (one write per module at a time; values seen meanwhile go into the
   * next write).
   */
  record(module: string, toolName: string, value: unknown, source: InferredResultSource): void;
  /** Resolves when everything recorded so far is in the store; rejects with the first write that failed. */
  flush(): Promise<void>;
}

export interface ResultRecorderOptions {
  /** The build output folder (`config.outDir`); the store is its `inferred/` folder. */
  outDir: string;
  now?: () => Date;
}

interface Pending {
  schema: JsonSchema;
  samples: number;
  sources: Set<InferredResultSource>;
}

const MODULE_NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Creates a recorder writing under `outDir`. Each write reads the file again and merges into it, so
 * two processes recording the same module lose at most what they wrote in the same instant (the
 * rename is atomic; a reader never sees half a file).
 */
export function createResultRecorder(options: ResultRecorderOptions): ResultRecorder {
  const now = options.now ?? (() => new Date());
  const pending = new Map<string, Map<string, Pending>>();
  const writes = new Map<string, Promise<void>>();
  const scheduled = new Set<string>();
  const failures: unknown[] = [];

  const schedule = (module: string): void => {
    if (scheduled.has(module)) return;
    scheduled.add(module);
    const previous = writes.get(module) ?? Promise.resolve();
    const next = previous.then(async () => {
      scheduled.delete(module);
      const batch = pending.get(module);
      pending.delete(module);
      if (batch !== undefined) await writeModule(options.outDir, module, batch, now()).catch((error: unknown) => void failures.push(error));
    });
    writes.set(module, next);
  };

  return {
    record(module, toolName, value, source) {
      if (!MODULE_NAME.test(module)) return; // module names are kebab-case; anything else cannot be a file name here
      const schema = inferSchema(value);
      const functions = pending.get(module) ?? new Map<string, Pending>();
      pending.set(module, functions);
      const seen = functions.get(toolName);
      if (seen === undefined) functions.set(toolName, { schema, samples: 1, sources: new Set([source]) });
      else {
        seen.schema = mergeSchemas(seen.schema, schema);
        seen.samples += 1;
        seen.sources.add(source);
      }
      schedule(module);
    },
    async flush() {
      while (scheduled.size > 0 || writes.size > 0) {
        const current = [...writes.entries()];
        await Promise.all(current.map(([, write]) => write));
        for (const [module, write] of current) if (writes.get(module) === write) writes.delete(module);
      }
      const failure = failures.shift();
      failures.length = 0;
      if (failure !== undefined) throw failure;
    },
  };
}

async function writeModule(outDir: string, module: string, batch: Map<string, Pending>, now: Date): Promise<void> {
  const file = path.join(outDir, inferredResultsFile(module));
  const stored = await readStore(file);
  const entries = new Map(Object.entries(stored));
  for (const [toolName, observed] of batch) {
    const previous = entries.get(toolName);
    const sources = new Set<InferredResultSource>([...(previous?.sources ?? []), ...observed.sources]);
    entries.set(toolName, {
      schema: previous === undefined ? observed.schema : mergeSchemas(previous.schema, observed.schema),
      samples: Math.min(Number.MAX_SAFE_INTEGER, (previous?.samples ?? 0) + observed.samples),
      sources: [...sources].sort(),
      updatedAt: now.toISOString(),
    });
  }
  const sorted = [...entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const text = `${JSON.stringify(Object.fromEntries(sorted), null, 2)}\n`;
  if (Buffer.byteLength(text) > MAX_INFERRED_FILE_BYTES) {
    throw new Error(
      `inferred result types of module "${module}" would take ${Buffer.byteLength(text)} bytes, over the ${MAX_INFERRED_FILE_BYTES}-byte cap of ${file}; not written`,
    );
  }
  await writeFileAtomic(file, text);
}

async function readStore(file: string): Promise<InferredResultsFile> {
  try {
    // A store grown past the cap (or replaced by a link, a FIFO or a device) is started again rather than read.
    const text = await readSmallFile(file, MAX_INFERRED_FILE_BYTES);
    return text === undefined ? {} : parseInferredResults(text);
  } catch {
    return {};
  }
}
