import { SANDBOX_HOST_GLOBAL, namespaceBinding, type CapabilitySpec } from '../core/index.js';
import { generatedBanner } from './emit-banner.js';

/**
 * Emits the ES module `capabilities/<module>/index.js` that runs inside the sandbox. Every function
 * forwards to `globalThis.__agentSpaces.call(module, name, params ?? {}, mode)`, looked up at call time;
 * a text-returning MCP function also has `.full(params)` (mode `"full"`). Plain JS, no imports,
 * functions ordered by name.
 *
 * @example
 * // export function getSchedule(params) { return call("getSchedule", params, "value"); }
 */
export function emitProxy(spec: CapabilitySpec): string {
  const functions = [...spec.functions].map((fn) => ({ name: fn.name, resultKind: fn.resultKind })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const binding = namespaceBinding(spec.namespace, functions.map((fn) => fn.name));
  // The helper's name must not collide with an exported function (a tool may well be named `call`).
  const taken = new Set([binding.local, ...functions.map((fn) => fn.name)]);
  let call = 'call';
  for (let index = 2; taken.has(call); index += 1) call = `call${index}`;
  const lines = [
    generatedBanner(spec.source).trimEnd(),
    `const ${call} = (name, params, mode) => globalThis.${SANDBOX_HOST_GLOBAL}.call(${JSON.stringify(spec.module)}, name, params ?? {}, mode);`,
    '',
  ];
  for (const fn of functions) {
    const quoted = JSON.stringify(fn.name);
    lines.push(`export function ${fn.name}(params) {`, `  return ${call}(${quoted}, params, "value");`, '}');
    if (fn.resultKind === 'mcp-text') lines.push(`${fn.name}.full = (params) => ${call}(${quoted}, params, "full");`);
  }
  lines.push(
    '',
    `${binding.exported ? 'export ' : ''}const ${binding.local} = Object.freeze({ ${functions.map((fn) => fn.name).join(', ')} });`,
    `export default ${binding.local};`,
  );
  return `${lines.join('\n')}\n`;
}
