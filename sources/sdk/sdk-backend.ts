import { importTypeScript, type SdkConfig } from '../../config/index.js';
import { errorMessage, ToolCallError, untilAborted, type Backend, type BackendCall } from '../../core/index.js';
import { ENVELOPE_KEYS } from './derive-function.js';
import { resolveSdkEntry } from './resolve-entry.js';
import { POSITIONAL_KEYWORD, stepsOf, valueAt } from './sdk-paths.js';

type SdkFunction = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Performs the calls of the SDK modules: on the first call of an SDK, imports its module on the
 * host (a local `.ts` file through tsx, a package's entry natively) and builds its instance from
 * config (`create`); each call finds the function at its dotted path (`issues.get`) and calls it with
 * the validated arguments, bound to the object holding it.
 */
export function createSdkBackend(sdks: Record<string, SdkConfig>, root: string): Backend {
  const apis = new Map<string, Promise<unknown>>();
  const apiOf = (name: string, sdk: SdkConfig): Promise<unknown> => {
    let api = apis.get(name);
    if (api === undefined) {
      api = loadApi(name, sdk, root);
      apis.set(name, api);
      // A failed load is tried again by the next call (the package may have been installed since).
      api.catch(() => apis.delete(name));
    }
    return api;
  };
  return {
    async call(call) {
      const names = { capability: call.capability.module, function: call.function.name };
      const subject = `function "${call.function.toolName}" of capability "${call.capability.module}"`;
      const origin = call.capability.source;
      const sdk = origin.kind === 'sdk' ? sdks[origin.sdk] : undefined;
      if (origin.kind !== 'sdk' || sdk === undefined) {
        throw new ToolCallError('SERVER_UNAVAILABLE', `${subject}: its SDK is no longer in the config: rebuild the capabilities`, names);
      }
      let api: unknown;
      try {
        api = await apiOf(origin.sdk, sdk);
      } catch (error) {
        throw new ToolCallError('SERVER_UNAVAILABLE', `${subject}: the SDK could not be loaded: ${errorMessage(error)}`, names, {
          cause: error,
        });
      }
      const steps = call.function.toolName.split('.');
      const owner = valueAt(api, steps.slice(0, -1));
      const fn = valueAt(owner, steps.slice(-1));
      if (typeof fn !== 'function') {
        throw new ToolCallError('UNKNOWN_FUNCTION', `${subject}: the SDK has no such function now: rebuild the capabilities`, names);
      }
      const cancelled = (): ToolCallError => new ToolCallError('CANCELLED', `${subject} was cancelled: the run ended`, names);
      try {
        const result = await untilAborted(
          Promise.resolve((fn as SdkFunction).apply(owner, argumentsOf(call))),
          call.context.signal,
          cancelled,
        );
        return toJson(sdk.unwrapResponses === false ? result : unwrap(result));
      } catch (error) {
        if (error instanceof ToolCallError) throw error;
        throw new ToolCallError('TOOL_FAILED', `${subject} failed: ${errorMessage(error)}`, names, { cause: error });
      }
    },
    prepare(capability) {
      // A program that names the module is starting: the SDK loads meanwhile. A failed load is the call's
      // to try again and report.
      const origin = capability.source;
      const sdk = origin.kind === 'sdk' ? sdks[origin.sdk] : undefined;
      if (origin.kind === 'sdk' && sdk !== undefined) apiOf(origin.sdk, sdk).catch(() => undefined);
    },
    close: () => {
      apis.clear();
      return Promise.resolve();
    },
  };
}

async function loadApi(name: string, sdk: SdkConfig, root: string): Promise<unknown> {
  const module = (await importTypeScript(resolveSdkEntry(name, sdk, root))) as Record<string, unknown>;
  let api: unknown = module;
  if (sdk.create !== undefined) {
    const factory = module[sdk.create.export];
    if (typeof factory !== 'function') throw new Error(`"${sdk.create.export}" is not a function or class exported by the SDK`);
    const args = sdk.create.args ?? [];
    api =
      sdk.create.call === true
        ? await (factory as (...args: unknown[]) => unknown)(...args)
        : new (factory as new (...args: unknown[]) => unknown)(...args);
  }
  const at = valueAt(api, stepsOf(sdk.path));
  if (at === undefined) throw new Error(`the SDK has nothing at "${sdk.path}"`);
  return at;
}

/** The arguments the function takes: the object itself, or its properties in parameter order. */
function argumentsOf(call: BackendCall): unknown[] {
  const order = call.function.inputSchema[POSITIONAL_KEYWORD];
  if (!Array.isArray(order)) return [call.args];
  const values = order.map((name) => call.args[String(name)]);
  while (values.length > 0 && values.at(-1) === undefined) values.pop();
  return values;
}

/** `data` of an HTTP response envelope (as the declarations say, see `unwrapEnvelope`). */
function unwrap(result: unknown): unknown {
  if (typeof result !== 'object' || result === null) return result;
  return ENVELOPE_KEYS.every((key) => key in result) ? (result as { data: unknown }).data : result;
}

/** The value as JSON carries it (a Date as its ISO string, `undefined` as nothing): what the bridge validates. */
function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as unknown);
}
