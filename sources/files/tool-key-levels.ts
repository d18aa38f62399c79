import { isJsonSchemaObject } from '../../core/index.js';
import { joinPath, type KeyLevel, type MisplacedKey } from './check-keys.js';

/**
 * The keys each object of a tool definition may have, for JSON tool files and `defineTool()`, with
 * where a misplaced key belongs. A key that is not known is an error, never ignored: a
 * `requiresApproval` in the wrong place would otherwise let calls run without approval.
 */

const CONFIG_KEYS = ['requiresApproval', 'rateLimit', 'callers'] as const;
const SCHEMA_ALIASES = {
  inputSchema: 'parameters',
  input_schema: 'parameters',
  params: 'parameters',
  arguments: 'parameters',
  args: 'parameters',
  outputSchema: 'returns',
  output_schema: 'returns',
  returnSchema: 'returns',
  result: 'returns',
};

/** How paths to functions are written in one kind of definition. */
interface FunctionPaths {
  /** Any function, in advice: `functions[i]` or `functions.<name>`. */
  any: string;
  /** Where the capability-wide config lives, in words. */
  config: string;
}

const JSON_PATHS: FunctionPaths = { any: 'functions[i]', config: "the file's top-level config" };
const DEFINE_TOOL_PATHS: FunctionPaths = { any: 'functions.<name>', config: 'the config of defineTool()' };

const one = (path: string, advice: string): MisplacedKey[] => [{ path, advice }];

/** A `config` object written on a function: each of its keys, said where it goes. */
function configOnFunction(paths: FunctionPaths) {
  return (at: string, value: unknown): MisplacedKey[] => {
    const here = joinPath(at, 'config');
    if (!isJsonSchemaObject(value)) return one(here, `config goes on the capability (${paths.config}), not on a function`);
    const found: MisplacedKey[] = [];
    for (const key of Object.keys(value)) {
      if (key === 'requiresApproval') {
        found.push({
          path: joinPath(here, key),
          advice: `requiresApproval goes on the function itself (${joinPath(at, key)}) or on ${paths.config}`,
        });
      } else if (key === 'approvalMessage') {
        found.push({ path: joinPath(here, key), advice: `approvalMessage goes on the function itself (${joinPath(at, key)})` });
      } else if (key === 'rateLimit') {
        found.push({
          path: joinPath(here, key),
          advice: `a rate limit covers the whole capability: put it in ${paths.config} (config.rateLimit)`,
        });
      }
    }
    if (found.length < Object.keys(value).length || found.length === 0) {
      found.push({
        path: here,
        advice: `config goes on the capability (${paths.config}, keys: ${CONFIG_KEYS.join(', ')}), not on a function`,
      });
    }
    return found;
  };
}

function functionLevel(paths: FunctionPaths, keys: readonly string[]): KeyLevel {
  return {
    name: 'function',
    keys,
    aliases: SCHEMA_ALIASES,
    elsewhere: {
      config: configOnFunction(paths),
      rateLimit: (at) =>
        one(joinPath(at, 'rateLimit'), `a rate limit covers the whole capability: put it in ${paths.config} (config.rateLimit)`),
      version: (at) => one(joinPath(at, 'version'), 'version goes on the capability (top-level version)'),
      implementation: (at) => one(joinPath(at, 'implementation'), 'implementation goes on the top level of the file'),
    },
  };
}

function configLevel(approvalMessageGoes: string): KeyLevel {
  return {
    name: 'config',
    keys: CONFIG_KEYS,
    elsewhere: {
      approvalMessage: (at) => one(joinPath(at, 'approvalMessage'), `approvalMessage goes ${approvalMessageGoes}`),
      requests: (at) => one(joinPath(at, 'requests'), `requests goes inside rateLimit (${joinPath(at, 'rateLimit')}: {requests, period})`),
      period: (at) => one(joinPath(at, 'period'), `period goes inside rateLimit (${joinPath(at, 'rateLimit')}: {requests, period})`),
    },
  };
}

export const RATE_LIMIT_LEVEL: KeyLevel = { name: 'rateLimit', keys: ['requests', 'period', 'onLimit', 'maxWaitMs', 'maxQueue'] };

/** The top level of a capability with several functions (the seed's JSON format, `defineTool()`). */
function capabilityLevel(paths: FunctionPaths, keys: readonly string[], perFunction: readonly string[]): KeyLevel {
  const onFunction = (key: string) => (at: string) =>
    one(joinPath(at, key), `each function has its own ${key}: put it on a function (${paths.any}.${key})`);
  return {
    name: 'top-level',
    keys,
    aliases: { tools: 'functions' },
    elsewhere: {
      requiresApproval: (at) =>
        one(
          joinPath(at, 'requiresApproval'),
          `requiresApproval goes in config (config.requiresApproval) to cover every function, or on one function (${paths.any}.requiresApproval)`,
        ),
      approvalMessage: (at) => one(joinPath(at, 'approvalMessage'), `approvalMessage goes on a function (${paths.any}.approvalMessage)`),
      rateLimit: (at) => one(joinPath(at, 'rateLimit'), 'rateLimit goes in config (config.rateLimit)'),
      ...Object.fromEntries(perFunction.map((key) => [key, onFunction(key)])),
    },
  };
}

/** The key levels of a JSON tool file. */
export const JSON_FILE_LEVELS = {
  seed: capabilityLevel(JSON_PATHS, ['name', 'implementation', 'description', 'version', 'functions', 'config'], ['parameters', 'returns']),
  seedFunction: functionLevel(JSON_PATHS, [
    'name',
    'description',
    'parameters',
    'returns',
    'requiresApproval',
    'approvalMessage',
    'callers',
  ]),
  seedConfig: configLevel(`on a function (${JSON_PATHS.any}.approvalMessage)`),
  /** A plain OpenAI-style tool is its own one function. `strict` is OpenAI's flag for generating arguments. */
  single: {
    name: 'top-level',
    keys: [
      'name',
      'implementation',
      'description',
      'version',
      'parameters',
      'returns',
      'requiresApproval',
      'approvalMessage',
      'callers',
      'config',
      'strict',
    ],
    aliases: SCHEMA_ALIASES,
    elsewhere: {
      rateLimit: (at) => one(joinPath(at, 'rateLimit'), `rateLimit goes in config (${joinPath(joinPath(at, 'config'), 'rateLimit')})`),
      functions: (at) =>
        one(
          joinPath(at, 'functions'),
          'functions must be an array of functions ({"name": …, "functions": [{"name": …, "parameters": …}]})',
        ),
      function: (at) => one(joinPath(at, 'function'), 'a {"function": {...}} wrapper also needs "type": "function"'),
    },
  } satisfies KeyLevel,
  singleConfig: configLevel('on the tool itself (top-level approvalMessage)'),
  wrapper: {
    name: '{"type": "function"} wrapper',
    keys: ['type', 'function'],
    elsewhere: Object.fromEntries(
      [
        'name',
        'description',
        'parameters',
        'returns',
        'requiresApproval',
        'approvalMessage',
        'callers',
        'config',
        'implementation',
        'strict',
      ].map((key) => [key, (at: string) => one(joinPath(at, key), `${key} goes inside function (function.${key})`)]),
    ),
  } satisfies KeyLevel,
  rateLimit: RATE_LIMIT_LEVEL,
};

/** The key levels of a `defineTool()` definition. */
export const DEFINE_TOOL_LEVELS = {
  tool: capabilityLevel(DEFINE_TOOL_PATHS, ['name', 'description', 'version', 'functions', 'config'], ['parameters', 'returns', 'handler']),
  function: {
    ...functionLevel(DEFINE_TOOL_PATHS, [
      'description',
      'parameters',
      'returns',
      'requiresApproval',
      'approvalMessage',
      'callers',
      'handler',
    ]),
    elsewhere: {
      ...functionLevel(DEFINE_TOOL_PATHS, []).elsewhere,
      name: (at: string) => one(joinPath(at, 'name'), "a function's name is its key in functions (functions: { myFunction: {...} })"),
    },
  } satisfies KeyLevel,
  config: configLevel(`on a function (${DEFINE_TOOL_PATHS.any}.approvalMessage)`),
  rateLimit: RATE_LIMIT_LEVEL,
};
