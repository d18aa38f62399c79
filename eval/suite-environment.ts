/**
 * The data a suite's capabilities work on, shared between the eval harness (which resets it per task
 * and checks it at the end) and the suite's tool handlers. Handlers are loaded by the space through its
 * own module loader (tsx), so a module-level variable would not be shared with the harness: the state
 * lives on `globalThis` under a registered symbol, one slot per suite name, in the host process (tool
 * handlers of `defineTool` capabilities run there, never in the sandbox).
 */
const SLOTS = Symbol.for('agent-spaces.eval.suite-environments');

interface Slots {
  values: Map<string, unknown>;
}

function slots(): Slots {
  const holder = globalThis as unknown as Record<symbol, Slots | undefined>;
  return (holder[SLOTS] ??= { values: new Map() });
}

export interface SuiteEnvironment<T> {
  /** The current data; throws when the harness has not set any (the tools were called outside an eval). */
  get(): T;
  set(value: T): void;
  clear(): void;
}

export function suiteEnvironment<T>(suite: string): SuiteEnvironment<T> {
  return {
    get() {
      const { values } = slots();
      if (!values.has(suite))
        throw new Error(`the data of eval suite "${suite}" is not loaded: its tools run only inside 'agent-spaces eval'`);
      return values.get(suite) as T;
    },
    set(value) {
      slots().values.set(suite, value);
    },
    clear() {
      slots().values.delete(suite);
    },
  };
}
