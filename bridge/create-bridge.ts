import type { CallContext, CapabilityCallHandler, CapabilityCallParams, EncodedJson } from '../core/index.js';
import type { Bridge, BridgeOptions } from './bridge.js';
import { CallPipeline } from './call-pipeline.js';

/**
 * Creates the bridge: one pipeline for every call — resolve the function, validate the arguments,
 * rate limit, approval, backend call, validate the result, size cap — with events for each step.
 *
 * @example
 * const bridge = createBridge({ capabilities, backends: { weather: createInProcessBackend({ weather }) } });
 * await bridge.handle({ capability: 'weather', function: 'getWeather', args: { city: 'Oslo' } }, context);
 */
export function createBridge(options: BridgeOptions): Bridge {
  const pipeline = new CallPipeline(options);
  // `handle` serves direct calls and `handleEncoded` the runtime, so each says who calls unless told.
  const handle: CapabilityCallHandler = async (params, context) =>
    (await pipeline.perform(params, context.caller === undefined ? { ...context, caller: 'direct' } : context)).value;
  const handleEncoded = async (params: CapabilityCallParams, context: CallContext): Promise<EncodedJson> => {
    return (await pipeline.perform(params, context.caller === undefined ? { ...context, caller: 'code' } : context)).json;
  };
  return {
    handle,
    handleEncoded,
    capabilities: () => pipeline.capabilities(),
    on: (listener) => pipeline.on(listener),
    close: () => pipeline.close(),
  };
}
