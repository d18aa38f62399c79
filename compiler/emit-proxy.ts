import { SANDBOX_HOST_GLOBAL, namespaceBinding, type CapabilitySpec } from '../core/index.js';
import { generatedBanner } from './emit-banner.js';

/**
 * Emits the ES module `capabilities/<module>/index.js` that runs inside the sandbox. Every function
 * forwards to `globalThis.__agentSpaces.call(module, name, params ?? {}, mode)`, looked up at call time;
 * a text-returning MCP function also has `.full(params)` (mode `"full"`). Plain JS, no imports,
 * functions ordered by name.
 *
 * Nothing a source names becomes a binding of the module's scope: the functions are methods of one
 * object (`functions$`), exported under their names through private `$<name>` bindings
 * (`export { $getSum as getSum }`). So a tool named `globalThis`, `Object`, `call` or after anything
 * else the module uses cannot shadow it (a function declaration `globalThis` would have made every
 * function of the module throw).
 *
 * @example
 * // const functions$ = { getSchedule(params) { return call$("getSchedule", params, "value"); } };
 */
export function emitProxy(spec: CapabilitySpec): string {
  const functions = [...spec.functions]
    .map((fn) => ({ name: fn.name, resultKind: fn.resultKind }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const binding = namespaceBinding(
    spec.namespace,
    functions.map((fn) => fn.name),
  );
  // Module-scope names are ours alone: `call$`, `functions$`, and `$` + a function's name (which no
  // other binding starts with). The globals used (`globalThis`, `Object`) are never among them.
  const local = (name: string): string => `$${name}`;
  const key = (name: string): string => (name === '__proto__' ? '["__proto__"]' : name);
  const lines = [
    generatedBanner(spec.source).trimEnd(),
    `const call$ = (name, params, mode) => globalThis.${SANDBOX_HOST_GLOBAL}.call(${JSON.stringify(spec.module)}, name, params ?? {}, mode);`,
    'const functions$ = {',
  ];
  for (const fn of functions) {
    lines.push(`  ${key(fn.name)}(params) {`, `    return call$(${JSON.stringify(fn.name)}, params, "value");`, '  },');
  }
  lines.push('};');
  for (const fn of functions) {
    const quoted = JSON.stringify(fn.name);
    lines.push(`const ${local(fn.name)} = functions$[${quoted}];`);
    if (fn.resultKind === 'mcp-text') lines.push(`${local(fn.name)}.full = (params) => call$(${quoted}, params, "full");`);
  }
  const exported = functions.map((fn) => `${local(fn.name)} as ${fn.name}`);
  lines.push(
    '',
    ...(exported.length === 0 ? [] : [`export { ${exported.join(', ')} };`]),
    // The namespace object: the same functions, frozen.
    'const namespace$ = Object.freeze(functions$);',
    `export { ${binding.exported ? `namespace$ as ${binding.local}, ` : ''}namespace$ as default };`,
  );
  return `${lines.join('\n')}\n`;
}
