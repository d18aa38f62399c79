import { namespaceBinding, type CapabilitySpec, type FunctionSpec } from '../../core/index.js';
import { BUILT_IN_SOURCE_KINDS } from '../../space/index.js';
import type { StudioContext } from './studio-context.js';
import type { StarterProgram } from './wire-types.js';

/** Candidates type-checked at most before the studio gives up on a starter and shows the hint instead. */
const MAX_CHECKED = 4;
/** How deep argument samples go into nested schemas (a recursive $ref stops here). */
const MAX_DEPTH = 6;

/**
 * Whether a module is the space's own: every kind of source but those every space comes with (the
 * standard library with the space's task-storage, session state). A new kind of source is the space's
 * own with no edit here.
 */
const isOwn = (spec: CapabilitySpec): boolean => !BUILT_IN_SOURCE_KINDS.has(spec.source.kind);

/** The last starter of each studio, by the build it was made from (a rebuild may change the catalog). */
const made = new WeakMap<StudioContext, { build: string; starter: Promise<StarterProgram> }>();

/**
 * The program the playground opens on in a space where the user has written none yet: a call of the
 * space's own first capability (its first function that needs no approval, when there is one), with
 * arguments sampled from the function's schema, checked against the built declarations so it opens
 * without a type error. With no capability of its own (or none whose sample checks clean), the editor
 * opens empty with a hint.
 */
export async function starterProgram(context: StudioContext): Promise<StarterProgram> {
  const build = context.lastBuild ?? (await context.build());
  const cached = made.get(context);
  if (cached?.build === build.at) return cached.starter;
  const starter = makeStarter(context);
  made.set(context, { build: build.at, starter });
  starter.catch(() => made.delete(context));
  return starter;
}

async function makeStarter(context: StudioContext): Promise<StarterProgram> {
  const specs = await context.space.capabilities();
  const candidates = ownFunctions(specs).slice(0, MAX_CHECKED);
  for (const { spec, fn } of candidates) {
    const code = starterCode(spec, fn);
    const diagnostics = await context.space.check(code);
    if (diagnostics.length === 0)
      return {
        code,
        from: { module: spec.module, function: fn.name },
        hint: `A first program from this space's ${spec.module}.${fn.name}: edit it, then Run (Ctrl+Enter).`,
      };
  }
  const own = specs.filter(isOwn);
  return {
    code: '',
    hint:
      own.length === 0
        ? 'This space has no capabilities of its own yet: add a tool (a JSON tool file, a defineTool module, an MCP server or an OpenAPI spec) to its config and Rebuild in the Capabilities pane. Programs import them from @capabilities/<name>; the standard library (@capabilities/std-*) is there already.'
        : `Write a program that imports this space's capabilities (${own.map((spec) => `@capabilities/${spec.module}`).join(', ')}); the Capabilities pane shows their functions and types.`,
  };
}

/** The space's own functions, first module first; within a module, those without approval first. */
function ownFunctions(specs: readonly CapabilitySpec[]): { spec: CapabilitySpec; fn: FunctionSpec }[] {
  const rank = (spec: CapabilitySpec): number => (spec.source.kind === 'agent' ? 1 : 0); // an agent's calls need a model
  const own = specs
    .filter(isOwn)
    .map((spec, index) => ({ spec, index }))
    .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index);
  return own.flatMap(({ spec }) => {
    const approval = (fn: FunctionSpec): number => (fn.requiresApproval || spec.config.requiresApproval ? 1 : 0);
    return spec.functions
      .map((fn, index) => ({ fn, index }))
      .sort((a, b) => approval(a.fn) - approval(b.fn) || a.index - b.index)
      .map(({ fn }) => ({ spec, fn }));
  });
}

/** `import { ns } from '@capabilities/m'; const result = await ns.fn({ … }); export default result;` */
export function starterCode(spec: CapabilitySpec, fn: FunctionSpec): string {
  const binding = namespaceBinding(
    spec.namespace,
    spec.functions.map((each) => each.name),
  );
  // The namespace is exported unless a function has its name; the function always is.
  const [imported, callee] = binding.exported ? [spec.namespace, `${spec.namespace}.${fn.name}`] : [fn.name, fn.name];
  const args = sampleValue(fn.inputSchema, fn.inputSchema, 0) ?? {};
  const description = (fn.description ?? '').split('\n')[0]?.trim() ?? '';
  return [
    `// Type-checked as you type; Run (Ctrl+Enter) runs it in the sandbox.`,
    `import { ${imported} } from '@capabilities/${spec.module}';`,
    '',
    ...(description ? [`// ${spec.module}.${fn.name}: ${description.length > 110 ? `${description.slice(0, 110)}…` : description}`] : []),
    `const result = await ${callee}(${literal(args, '')});`,
    `console.log('${spec.module}.${fn.name} answered');`,
    'export default result;',
    '',
  ].join('\n');
}

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value of the schema's type for a first program: its default, example or first choice, else a plain one. */
export function sampleValue(schema: unknown, root: unknown, depth: number): unknown {
  if (!isSchema(schema) || depth > MAX_DEPTH) return undefined;
  if (typeof schema.$ref === 'string') return sampleValue(resolve(root, schema.$ref), root, depth + 1);
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0)
      return sampleValue(options.find((option) => !(isSchema(option) && option.type === 'null')) ?? options[0], root, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => sampleValue(part, root, depth + 1));
    return parts.every((part) => isSchema(part)) ? Object.assign({}, ...parts) : parts.find((part) => part !== undefined);
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((each) => each !== 'null') ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'string':
      return sampleString(schema);
    case 'integer':
    case 'number': {
      const minimum =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 1
            : undefined;
      const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      const value = minimum !== undefined && minimum > 1 ? minimum : maximum !== undefined && maximum < 1 ? maximum : 1;
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 3) : 0;
      return Array.from({ length: count }, () => sampleValue(schema.items, root, depth + 1) ?? null);
    }
    case 'object': {
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
      const value: Record<string, unknown> = {};
      for (const name of required) value[name] = sampleValue(properties[name], root, depth + 1) ?? null;
      return value;
    }
    default:
      return undefined;
  }
}

function sampleString(schema: Schema): string {
  const formats: Record<string, string> = {
    date: '2026-01-01',
    'date-time': '2026-01-01T09:00:00Z',
    time: '09:00:00',
    email: 'someone@example.com',
    uri: 'https://example.com/',
    url: 'https://example.com/',
    uuid: '00000000-0000-4000-8000-000000000000',
  };
  let text = (typeof schema.format === 'string' ? formats[schema.format] : undefined) ?? 'example';
  if (typeof schema.minLength === 'number' && text.length < schema.minLength) text = text.padEnd(Math.min(schema.minLength, 200), 'x');
  if (typeof schema.maxLength === 'number' && text.length > schema.maxLength) text = text.slice(0, schema.maxLength);
  return text;
}

/** A local JSON pointer (`#/$defs/address`) into the function's own schema; anything else resolves to nothing. */
function resolve(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
    at = isSchema(at) ? at[key] : undefined;
  }
  return at;
}

/** A value as TypeScript source: identifier keys bare, strings single-quoted, objects over lines when long. */
function literal(value: unknown, indent: string): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const inner = `${indent}  `;
  const parts = Array.isArray(value)
    ? value.map((item) => literal(item, inner))
    : Object.entries(value).map(
        ([key, item]) =>
          `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : `'${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`}: ${literal(item, inner)}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (parts.length === 0) return `${open}${close}`;
  const oneLine = Array.isArray(value) ? `[${parts.join(', ')}]` : `{ ${parts.join(', ')} }`;
  return oneLine.length <= 80 && !oneLine.includes('\n')
    ? oneLine
    : `${open}\n${parts.map((part) => `${inner}${part}`).join(',\n')},\n${indent}${close}`;
}
