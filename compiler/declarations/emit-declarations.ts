import {
  CompileError,
  describeCallers,
  isJsonSchemaObject,
  isSafeIdentifier,
  namespaceBinding,
  sourceLabel,
  toTypeName,
  type CapabilitySpec,
  type CompileWarning,
  type FunctionSpec,
  type InferredResult,
} from '../../core/index.js';
import { generatedBanner } from '../emit-banner.js';
import { MCP_RESULT_DECLARATIONS, MCP_RESULT_TYPE_NAMES } from './mcp-result-types.js';
import { toPointer } from './json-pointer.js';
import { collectLocalRefTargets } from './ref-targets.js';
import { SchemaTypeWriter } from './schema-type-writer.js';
import { targetIdentity } from './target-identity.js';
import { isVoidResult } from './void-result.js';
import { docComment } from './ts-doc.js';

export interface DeclarationsOutput {
  /** The text of `capabilities/<module>/index.d.ts`. */
  dts: string;
  warnings: CompileWarning[];
}

/** Global types the declarations refer to; a generated type must not shadow them. */
const GLOBAL_TYPE_NAMES = ['Promise', 'Record', 'Array'];

interface SchemaRoot {
  schema: unknown;
  /** `inputSchema`, `outputSchema` or an inferred result's schema: where warnings point. */
  keyword: 'inputSchema' | 'outputSchema' | 'inferredResult/schema';
  typeName: string;
  /** `$ref` targets inside the schema (path segments), sorted by pointer. */
  targets: string[][];
  /** Pointer → type name, filled in by {@link assignTypeNames}. */
  names: Map<string, string>;
}

interface FunctionPlan {
  spec: FunctionSpec;
  params: SchemaRoot;
  result?: SchemaRoot;
  resultTypeName: string;
}

/**
 * Emits the declarations of one capability module (`capabilities/<module>/index.d.ts`): per function a
 * `<Fn>Params` type, a `<Fn>Result` type, the types of its `$ref` targets and the function itself,
 * then the namespace object (named and default export). Deterministic: functions are ordered by name.
 * A schema part that cannot be typed becomes `unknown` with a warning; the output always type-checks
 * under `tsc --strict`.
 *
 * @throws CompileError when a function or namespace name is not a usable identifier or is repeated
 *   (names come from {@link assignFunctionNames}; this is a fault of the caller).
 */
export function emitDeclarations(spec: CapabilitySpec): DeclarationsOutput {
  checkNames(spec);
  const source = sourceLabel(spec.source);
  const warnings: CompileWarning[] = [];
  const functions = [...spec.functions].sort((a, b) => compare(a.name, b.name));
  const hasMcpText = functions.some((fn) => fn.resultKind === 'mcp-text');
  const plans = planFunctions(functions, hasMcpText);

  const sections: string[] = [generatedBanner(spec.source)];
  const declared = new Set<string>();
  if (hasMcpText) sections.push(MCP_RESULT_DECLARATIONS);
  for (const plan of plans) {
    let text = '';
    for (const root of [plan.params, ...(plan.result === undefined ? [] : [plan.result])]) {
      if (root !== plan.params && isVoidResult(root.schema)) {
        text += `/** Nothing: the call answers without content. */\nexport type ${root.typeName} = void;\n`;
        continue;
      }
      const writer = new SchemaTypeWriter(root.schema, root.names);
      text += writer.declaration('', []);
      for (const segments of root.targets) {
        // A type shared by several functions' schemas is declared where it is first used.
        const name = root.names.get(toPointer(segments)) ?? '';
        if (declared.has(name)) continue;
        declared.add(name);
        text += writer.declaration(toPointer(segments), segments);
      }
      for (const warning of writer.warnings) {
        const pointer = `/${root.keyword}${warning.pointer}`;
        warnings.push({
          source,
          capability: spec.module,
          function: plan.spec.name,
          pointer,
          message: `function "${plan.spec.name}" of capability "${spec.module}": the schema at ${pointer} ${warning.message}`,
        });
      }
    }
    if (plan.result === undefined) {
      const type = plan.spec.resultKind === 'mcp-text' ? 'string' : 'unknown';
      const doc = plan.spec.resultKind === 'mcp-text' ? '/** The text content of the result, joined. */\n' : '';
      text += `${doc}export type ${plan.resultTypeName} = ${type};\n`;
    }
    text += functionDeclaration(plan, spec);
    sections.push(text);
  }

  const binding = namespaceBinding(
    spec.namespace,
    functions.map((fn) => fn.name),
  );
  if (!binding.exported) {
    warnings.push({
      source,
      capability: spec.module,
      message: `capability "${spec.module}": its namespace "${spec.namespace}" has the name of one of its functions, so the namespace object is only the default export (import capability from '@capabilities/${spec.module}')`,
    });
  }
  const members = functions.map((fn) => `  ${fn.name}: typeof ${fn.name};\n`).join('');
  const doc = docComment([spec.description]);
  sections.push(
    `${doc}${binding.exported ? 'export ' : ''}declare const ${binding.local}: {\n${members}};\nexport default ${binding.local};\n`,
  );
  return { dts: sections.join('\n'), warnings };
}

function planFunctions(functions: readonly FunctionSpec[], hasMcpText: boolean): FunctionPlan[] {
  const reserved = new Set<string>([...GLOBAL_TYPE_NAMES, ...(hasMcpText ? MCP_RESULT_TYPE_NAMES : [])]);
  const allocate = (wanted: string): string => {
    let name = wanted;
    for (let index = 2; reserved.has(name); index += 1) name = `${wanted}${index}`;
    reserved.add(name);
    return name;
  };
  const plans = functions.map((spec): FunctionPlan => {
    const paramsName = allocate(toTypeName(spec.name, 'Params'));
    const resultTypeName = allocate(toTypeName(spec.name, 'Result'));
    const params = makeRoot(spec.inputSchema, 'inputSchema', paramsName);
    const typed = spec.resultKind !== 'mcp-text' && spec.outputSchema !== undefined;
    const inferred = spec.resultKind === 'mcp-text' && spec.outputSchema === undefined ? spec.inferredResult : undefined;
    const result = typed
      ? makeRoot(spec.outputSchema, 'outputSchema', resultTypeName)
      : inferred === undefined
        ? undefined
        : makeRoot(inferred.schema, 'inferredResult/schema', resultTypeName);
    return result === undefined ? { spec, params, resultTypeName } : { spec, params, result, resultTypeName };
  });
  assignTypeNames(
    plans.flatMap((plan) => [plan.params, ...(plan.result === undefined ? [] : [plan.result])]),
    allocate,
    reserved,
  );
  return plans;
}

function makeRoot(schema: unknown, keyword: SchemaRoot['keyword'], typeName: string): SchemaRoot {
  return { schema, keyword, typeName, targets: collectLocalRefTargets(schema), names: new Map([['', typeName]]) };
}

/**
 * Names the `$ref` targets of every root: the PascalCase of the target's last key (`#/$defs/trip` →
 * `Trip`) when no other target of the module wants that name, else prefixed with its root's type name
 * (`GetScheduleResultTrip`), with a number appended if even that is taken. Targets that are the same
 * schema in several roots (see {@link targetIdentity}) are one type with one name, declared once.
 */
function assignTypeNames(roots: readonly SchemaRoot[], allocate: (wanted: string) => string, reserved: ReadonlySet<string>): void {
  const wanted = (segments: readonly string[]): string => {
    const last = segments.at(-1) ?? '';
    const label = /^\d+$/.test(last) ? `${segments.at(-2) ?? ''} ${last}` : last;
    return toTypeName(label, '');
  };
  const identities = roots.map((root, index) => {
    const cache = new Map<string, { text: string; refs: string[][] }>();
    return root.targets.map((segments) => targetIdentity(root.schema, segments, cache, `${index}:${toPointer(segments)}`));
  });
  // The distinct types that want each name.
  const wanting = new Map<string, Set<string>>();
  roots.forEach((root, index) =>
    root.targets.forEach((segments, target) => {
      const bare = wanted(segments);
      wanting.set(bare, (wanting.get(bare) ?? new Set()).add(identities[index]?.[target] ?? ''));
    }),
  );
  const named = new Map<string, string>();
  roots.forEach((root, index) =>
    root.targets.forEach((segments, target) => {
      const identity = identities[index]?.[target] ?? '';
      let name = named.get(identity);
      if (name === undefined) {
        const bare = wanted(segments);
        const unique = wanting.get(bare)?.size === 1 && !reserved.has(bare);
        name = allocate(unique ? bare : `${root.typeName}${bare}`);
        named.set(identity, name);
      }
      root.names.set(toPointer(segments), name);
    }),
  );
}

/**
 * The type names the declarations of `capability` give, per function: of its parameters' and its
 * result's `$ref` targets (pointer → name; `''` is the root's own type), so a summary can name the
 * same types (`Promise<Pet>`) as `index.d.ts` does.
 */
export function declaredTypeNames(
  capability: CapabilitySpec,
): ReadonlyMap<string, { params: ReadonlyMap<string, string>; result?: ReadonlyMap<string, string> }> {
  let names = typeNamesCache.get(capability);
  if (names === undefined) {
    const functions = [...capability.functions].sort((a, b) => compare(a.name, b.name));
    const plans = planFunctions(
      functions,
      functions.some((fn) => fn.resultKind === 'mcp-text'),
    );
    names = new Map(
      plans.map((plan) => [
        plan.spec.name,
        { params: plan.params.names, ...(plan.result === undefined ? {} : { result: plan.result.names }) },
      ]),
    );
    typeNamesCache.set(capability, names);
  }
  return names;
}

const typeNamesCache = new WeakMap<
  CapabilitySpec,
  ReadonlyMap<string, { params: ReadonlyMap<string, string>; result?: ReadonlyMap<string, string> }>
>();

function functionDeclaration(plan: FunctionPlan, capability: CapabilitySpec): string {
  const { spec } = plan;
  const paramsName = plan.params.typeName;
  const optional = paramsAreOptional(spec.inputSchema) ? '?' : '';
  const approval =
    spec.requiresApproval === true || capability.config.requiresApproval === true
      ? 'Requires approval: the call waits until the host approves it, and fails if it is denied.'
      : undefined;
  const summary = spec.description ?? spec.annotations?.title;
  const callers = describeCallers(spec.callers);
  if (spec.resultKind !== 'mcp-text') {
    const doc = docComment([summary, approval], '', callers === undefined ? [] : [callers]);
    return `${doc}export declare function ${spec.name}(params${optional}: ${paramsName}): Promise<${plan.resultTypeName}>;\n`;
  }
  const inferred = spec.outputSchema === undefined ? spec.inferredResult : undefined;
  const resolves =
    inferred === undefined
      ? 'Resolves to the text content of the result; `.full()` resolves to every content block.'
      : 'Resolves to the text content of the result parsed as JSON; `.full()` resolves to every content block.';
  const doc = docComment([summary, resolves, approval], '  ', [
    ...(inferred === undefined ? [] : [inferredRemark(inferred)]),
    ...(callers === undefined ? [] : [callers]),
  ]);
  return (
    `export declare const ${spec.name}: {\n` +
    `${doc}  (params${optional}: ${paramsName}): Promise<${plan.resultTypeName}>;\n` +
    `  /** The whole MCP result: every content block (text, images, audio, resources) and any structured content. */\n` +
    `  full(params${optional}: ${paramsName}): Promise<McpCallResult>;\n` +
    `};\n`
  );
}

/** Says that a result type was learned, from how much and where, so nobody takes it for a contract. */
function inferredRemark(inferred: InferredResult): string {
  const results = `${inferred.samples} observed result${inferred.samples === 1 ? '' : 's'}`;
  const from = inferred.sources.map((source) => (source === 'run' ? 'calls' : 'agent-spaces capabilities sample')).join(' and ');
  return `@remarks Result type inferred from ${results} (${from}; no outputSchema declared); may be incomplete.`;
}

/** Params may be left out when the input schema requires nothing at its top level. */
function paramsAreOptional(schema: unknown): boolean {
  if (!isJsonSchemaObject(schema)) return true;
  if (['allOf', 'anyOf', 'oneOf', '$ref'].some((keyword) => Object.hasOwn(schema, keyword))) return false;
  return !Array.isArray(schema.required) || schema.required.length === 0;
}

function checkNames(spec: CapabilitySpec): void {
  const seen = new Set<string>();
  for (const name of [spec.namespace, ...spec.functions.map((fn) => fn.name)]) {
    if (!isSafeIdentifier(name)) {
      throw new CompileError(
        'INVALID_NAME',
        `capability "${spec.module}": "${name}" is not a usable JavaScript name; assign names with assignFunctionNames()/toNamespaceName()`,
        { details: { module: spec.module, name } },
      );
    }
  }
  for (const fn of spec.functions) {
    if (seen.has(fn.name)) {
      throw new CompileError(
        'DUPLICATE_NAME',
        `capability "${spec.module}": two functions are named "${fn.name}"; assign names with assignFunctionNames()`,
        { details: { module: spec.module, name: fn.name } },
      );
    }
    seen.add(fn.name);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
