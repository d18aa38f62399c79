import path from 'node:path';
import type { Node, Project, Signature, Symbol as MorphSymbol, Type } from 'ts-morph';
import type { SdkConfig } from '../../config/index.js';
import { CompileError, type CompileWarning, type RawCapability, type RawFunction } from '../../core/index.js';
import { deriveFunction } from './derive-function.js';
import { createTypeProject } from './type-project.js';
import { matchesAny, specifierOf, stepsOf } from './sdk-paths.js';

/** What reading one SDK found: its module, and why each export it left out was left out. */
export interface SdkReading {
  capability: RawCapability;
  warnings: CompileWarning[];
}

/** How deep namespaces are followed (`rest.issues.get` is 3). */
const MAX_NAMESPACE_DEPTH = 4;
const DEFAULT_MAX_DECLARATION_CHARS = 400_000;

interface Candidate {
  dotted: string;
  symbol: MorphSymbol;
  signature: Signature;
}

/**
 * Reads an SDK's own declarations with ts-morph (the package's `types`, a local folder's `.ts`
 * sources), as TypeScript resolves `sdk.package`/`sdk.module` from the config's folder, and makes one
 * capability of its functions: exported functions, the methods of an exported object or of the
 * instance `create` builds, and of their nested namespaces (`issues.get`), each with the schemas
 * derived from its parameter and result types. What it leaves out is said in the warnings.
 *
 * @throws CompileError when the SDK cannot be found or its `create`/`path` names nothing
 */
export async function readSdk(name: string, sdk: SdkConfig, root: string): Promise<SdkReading> {
  const label = `sdk:${name}`;
  const { project } = await createTypeProject();
  const specifier = specifierOf(sdk, root);
  const entry = project.createSourceFile(
    path.join(root, `__agent_spaces_sdk_${name.replace(/\W/g, '_')}__.ts`),
    entryText(sdk, specifier),
    {
      overwrite: true,
    },
  );
  if (entry.getImportDeclarations()[0]?.getModuleSpecifierSourceFile() === undefined) {
    const fix =
      sdk.package !== undefined
        ? `install it beside the config (npm install ${sdk.package})`
        : 'check the path (a .ts/.d.ts file or a folder with index.ts)';
    throw new CompileError('INVALID_SDK', `${label}: no TypeScript declarations found for "${specifier}" from ${root}: ${fix}`);
  }
  const problems = entryProblems(project, entry);
  if (problems !== undefined) throw new CompileError('INVALID_SDK', `${label}: ${problems}`);
  const api = entry.getVariableDeclarationOrThrow('api');
  const warnings: CompileWarning[] = [];
  const leaveOut = (dotted: string, reason: string): void => {
    warnings.push({ source: label, capability: name, function: dotted, message: `${label}: "${dotted}" left out: ${reason}` });
  };
  const candidates = collectCandidates(api.getType(), api, sdk, leaveOut);
  const functions = deriveAll(candidates, api, sdk, leaveOut, label, warnings);
  if (functions.length === 0) {
    throw new CompileError(
      'INVALID_SDK',
      `${label}: no function of "${specifier}" could be used (${warnings.length} left out; see the warnings)`,
    );
  }
  const capability: RawCapability = {
    name,
    ...(sdk.moduleName === undefined ? {} : { module: sdk.moduleName }),
    description: `TypeScript SDK ${specifier}${sdk.path === undefined ? '' : ` (${sdk.path})`}, called on the host.`,
    source: { kind: 'sdk', sdk: name },
    config: {
      ...(sdk.requireApproval === true ? { requiresApproval: true } : {}),
      ...(sdk.rateLimit === undefined ? {} : { rateLimit: sdk.rateLimit }),
    },
    functions,
  };
  return { capability, warnings };
}

/** The entry file: the API's type as a value `api`, so TypeScript resolves everything as a user's code would. */
function entryText(sdk: SdkConfig, specifier: string): string {
  const steps = stepsOf(sdk.path)
    .map((step) => `[${JSON.stringify(step)}]`)
    .join('');
  const root =
    sdk.create === undefined
      ? 'typeof sdk'
      : `${sdk.create.call === true ? 'ReturnType' : 'InstanceType'}<(typeof sdk)[${JSON.stringify(sdk.create.export)}]>`;
  return `import * as sdk from ${JSON.stringify(specifier)};\nexport declare const api: (${root})${steps};\n`;
}

/** The entry's own type errors (a `create.export` or `path` that names nothing), as one sentence. */
function entryProblems(project: Project, entry: Node): string | undefined {
  const diagnostics = project
    .getProgram()
    .getSemanticDiagnostics(entry.getSourceFile())
    .map((diagnostic) => {
      const text = diagnostic.getMessageText();
      return typeof text === 'string' ? text : text.getMessageText();
    });
  if (diagnostics.length === 0) return undefined;
  return `\`create\` or \`path\` names nothing usable: ${diagnostics.join('; ')}`;
}

function collectCandidates(root: Type, node: Node, sdk: SdkConfig, leaveOut: (dotted: string, reason: string) => void): Candidate[] {
  const candidates: Candidate[] = [];
  const visit = (type: Type, steps: readonly string[]): void => {
    for (const symbol of type.getProperties().sort((a, b) => compare(a.getName(), b.getName()))) {
      const name = symbol.getName();
      if (name.startsWith('_') || name.startsWith('#') || isHidden(symbol)) continue;
      const dotted = [...steps, name].join('.');
      const memberType = symbol.getTypeAtLocation(node);
      const signatures = memberType.getCallSignatures();
      const included = (sdk.include === undefined || matchesAny(dotted, sdk.include)) && !matchesAny(dotted, sdk.exclude);
      if (signatures[0] !== undefined) {
        if (included) candidates.push({ dotted, symbol, signature: signatures[0] });
      } else if (memberType.getConstructSignatures().length > 0) {
        if (included)
          leaveOut(
            dotted,
            `a class (its instances are not JSON data): to call its methods, build one from config with \`create: { export: '${name}', args: [...] }\``,
          );
      } else if (isNamespace(memberType, node) && steps.length + 1 < MAX_NAMESPACE_DEPTH) {
        visit(memberType, [...steps, name]);
      } else if (included && steps.length === 0) {
        leaveOut(dotted, `not a function (a value of type ${short(memberType.getText(node))})`);
      }
    }
  };
  visit(root, []);
  return candidates;
}

/** An object holding functions, followed as a namespace (`issues` of `issues.get`). */
function isNamespace(type: Type, node: Node): boolean {
  if (!type.isObject() || type.isArray()) return false;
  return type.getProperties().some((property) => property.getTypeAtLocation(node).getCallSignatures().length > 0);
}

/** `private`/`protected` members of a class. */
function isHidden(symbol: MorphSymbol): boolean {
  return symbol.getDeclarations().some((declaration) => /^\s*(private|protected)\b/.test(declaration.getText()));
}

function deriveAll(
  candidates: readonly Candidate[],
  node: Node,
  sdk: SdkConfig,
  leaveOut: (dotted: string, reason: string) => void,
  label: string,
  warnings: CompileWarning[],
): RawFunction[] {
  const budget = sdk.maxDeclarationChars ?? DEFAULT_MAX_DECLARATION_CHARS;
  let used = 0;
  const functions: RawFunction[] = [];
  const overBudget: string[] = [];
  for (const candidate of candidates) {
    const derived = deriveFunction(candidate, node, sdk);
    if ('reason' in derived) {
      leaveOut(candidate.dotted, derived.reason);
      continue;
    }
    // The schemas' size stands for the declarations' (they are written from them, about as long).
    const size = JSON.stringify(derived.fn.inputSchema).length + JSON.stringify(derived.fn.outputSchema ?? {}).length;
    if (used + size > budget) {
      overBudget.push(candidate.dotted);
      continue;
    }
    used += size;
    functions.push(derived.fn);
  }
  if (overBudget.length > 0) {
    warnings.push({
      source: label,
      message: `${label}: ${overBudget.length} function${overBudget.length === 1 ? '' : 's'} left out, past the declarations' budget of ${budget} characters (${overBudget.slice(0, 5).join(', ')}${overBudget.length > 5 ? ', …' : ''}): choose the ones you need with \`include\`, or raise \`maxDeclarationChars\``,
    });
  }
  return functions;
}

function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
