import { describe, expect, it } from 'vitest';
import {
  assignFunctionNames,
  assignModuleNames,
  isSafeIdentifier,
  namespaceBinding,
  toFunctionName,
  toModuleName,
  toNamespaceName,
  toTypeName,
} from './names.js';

describe('toModuleName', () => {
  it.each([
    ['trainSchedule', 'train-schedule'],
    ['My_Server', 'my-server'],
    ['train-schedule', 'train-schedule'],
    ['APIGateway', 'api-gateway'],
    ['HTTP2Server', 'http2-server'],
    ['s3Bucket', 's3-bucket'],
    ['mcp__everything  v2', 'mcp-everything-v2'],
    ['1password', '1password'],
    // The sandbox resolves only ASCII specifiers: letters are folded, what cannot be is dropped.
    ['café_au_lait', 'cafe-au-lait'],
    ['größe_prüfen', 'grosse-prufen'],
    ['Ærø', 'aero'],
    ['emoji🚀', 'emoji'],
    ['日本語', 'capability'],
    ['日本語 tools', 'tools'],
    ['___', 'capability'],
    ['', 'capability'],
  ])('%j → %j', (input, expected) => {
    expect(toModuleName(input)).toBe(expected);
  });
});

describe('toFunctionName', () => {
  it.each([
    ['get-sum', 'getSum'],
    ['get_sum', 'getSum'],
    ['getSum', 'getSum'],
    ['API-get-user', 'apiGetUser'],
    ['a.b', 'aB'],
    ['getHTTPResponse', 'getHttpResponse'],
    ['list files (recursive)', 'listFilesRecursive'],
    ['1x', '_1x'],
    ['2fa-verify', '_2faVerify'],
    ['delete', 'delete_'],
    ['default', 'default_'],
    ['function', 'function_'],
    ['in', 'in_'],
    ['class', 'class_'],
    ['await', 'await_'],
    ['yield', 'yield_'],
    ['let', 'let_'],
    ['static', 'static_'],
    ['implements', 'implements_'],
    ['eval', 'eval_'],
    ['arguments', 'arguments_'],
    ['then', 'then_'],
    ['Delete', 'delete_'],
    ['获取数据', '获取数据'],
    ['', 'fn'],
    ['!!!', 'fn'],
  ])('%j → %j', (input, expected) => {
    const name = toFunctionName(input);
    expect(name).toBe(expected);
    expect(isSafeIdentifier(name)).toBe(true);
  });
});

describe('toNamespaceName and toTypeName', () => {
  it.each([
    ['train-schedule', 'trainSchedule'],
    ['mcp-everything', 'mcpEverything'],
    ['std-fs', 'stdFs'],
    ['import', 'import_'],
    ['42', '_42'],
  ])('namespace %j → %j', (input, expected) => {
    expect(toNamespaceName(input)).toBe(expected);
  });

  it.each([
    ['getSchedule', 'Params', 'GetScheduleParams'],
    ['getSchedule', 'result', 'GetScheduleResult'],
    ['delete_', 'Params', 'DeleteParams'],
    ['_1x', 'Params', '_1xParams'],
    ['apiGetUser', '', 'ApiGetUser'],
    ['with space', '', 'WithSpace'],
    ['', '', 'Type'],
  ])('type %j + %j → %j', (name, suffix, expected) => {
    expect(toTypeName(name, suffix)).toBe(expected);
  });
});

describe('assignFunctionNames', () => {
  it('keeps every tool, renames clashes deterministically and reports every rename', () => {
    const { names, warnings } = assignFunctionNames(['get_sum', 'get-sum', 'getSum', 'delete', 'list', '']);
    expect(Object.fromEntries(names)).toEqual({
      getSum: 'getSum',
      'get-sum': 'getSum2',
      get_sum: 'getSum3',
      delete: 'delete_',
      list: 'list',
      '': 'fn',
    });
    expect(warnings).toEqual([
      { toolName: 'delete', name: 'delete_', message: 'tool "delete" is named "delete_": "delete" is a reserved word in JavaScript' },
      { toolName: '', name: 'fn', message: 'tool "" is named "fn": it has no letters or digits' },
      { toolName: 'get-sum', name: 'getSum2', message: 'tool "get-sum" is named "getSum2": "getSum" is taken by tool "getSum"' },
      { toolName: 'get_sum', name: 'getSum3', message: 'tool "get_sum" is named "getSum3": "getSum" is taken by tool "getSum"' },
    ]);
  });

  it('does not depend on the order of the input', () => {
    const tools = ['get_sum', 'get-sum', 'GET_SUM', 'getSum2', 'a.b', 'a_b', 'delete', 'delete_', '1x', '_1x', 'then'];
    const expected = assignFunctionNames(tools);
    for (const order of [[...tools].reverse(), [...tools.slice(4), ...tools.slice(0, 4)], [...tools].sort()]) {
      const result = assignFunctionNames(order);
      expect(Object.fromEntries(result.names)).toEqual(Object.fromEntries(expected.names));
      expect(result.warnings).toEqual(expected.warnings);
    }
  });

  it('never gives a numbered name another tool already has', () => {
    const { names } = assignFunctionNames(['get-sum', 'get_sum', 'getSum2']);
    expect(Object.fromEntries(names)).toEqual({ 'get-sum': 'getSum', get_sum: 'getSum3', getSum2: 'getSum2' });
    expect(new Set(names.values()).size).toBe(3);
  });

  it('gives every tool a distinct safe identifier, even for many colliding names', () => {
    const tools = Array.from(
      { length: 200 },
      (_, index) => ['x', 'X', 'x_', 'x-', '-x', 'delete', 'DELETE', '9', ''][index % 9] + '!'.repeat(index),
    );
    const { names } = assignFunctionNames(tools);
    expect(names.size).toBe(200);
    expect(new Set(names.values()).size).toBe(200);
    for (const name of names.values()) expect(isSafeIdentifier(name)).toBe(true);
  });

  it('reports a tool listed twice once', () => {
    const { names } = assignFunctionNames(['echo', 'echo']);
    expect(Object.fromEntries(names)).toEqual({ echo: 'echo' });
  });
});

describe('assignModuleNames', () => {
  it('kebab-cases, numbers clashes with -2 and reports them', () => {
    const { names, warnings } = assignModuleNames(['train_schedule', 'trainSchedule', 'train-schedule', 'Weather']);
    expect(Object.fromEntries(names)).toEqual({
      'train-schedule': 'train-schedule',
      trainSchedule: 'train-schedule-2',
      train_schedule: 'train-schedule-3',
      Weather: 'weather',
    });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'capability "trainSchedule" is named "train-schedule-2": "train-schedule" is taken by capability "train-schedule"',
      'capability "train_schedule" is named "train-schedule-3": "train-schedule" is taken by capability "train-schedule"',
    ]);
  });
});

describe('namespaceBinding', () => {
  it('exports the namespace by name unless a function has that name', () => {
    expect(namespaceBinding('trainSchedule', ['getSchedule'])).toEqual({ local: 'trainSchedule', exported: true });
    expect(namespaceBinding('getWeather', ['getWeather'])).toEqual({ local: '_default', exported: false });
    expect(namespaceBinding('getWeather', ['getWeather', '_default'])).toEqual({ local: '_default2', exported: false });
  });
});
