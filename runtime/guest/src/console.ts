function inspect(value: unknown, depth: number, seen: readonly unknown[]): string {
  switch (typeof value) {
    case 'string':
      return depth === 0 ? value : jsonStringify(value);
    case 'bigint':
      return StringConstructor(value) + 'n';
    case 'symbol':
      return safe(() => symbolToString(value), 'Symbol()');
    case 'function':
      return safe(() => regExpTest(CLASS_SOURCE, functionToString(value)), false)
        ? '[class ' + (safe(() => value.name, '') || 'anonymous') + ']'
        : '[Function: ' + (safe(() => value.name, '') || 'anonymous') + ']';
    case 'object':
      break;
    default:
      return StringConstructor(value);
  }
  if (value === null) return 'null';
  if (arrayIncludes(seen, value)) return '[Circular]';
  if (value instanceof ErrorConstructor) return safe(() => StringConstructor(value.stack || value.name + ': ' + value.message), '[Error]');
  if (isDate(value)) return safe(() => dateToISOString(value), 'Invalid Date');
  if (isRegExp(value)) return safe(() => regExpToString(value), '[RegExp]');
  if (depth > 4) return isArray(value) ? '[Array]' : '[Object]';
  const inner = copyWith(seen, value);
  const show = (item: unknown): string => safe(() => inspect(item, depth + 1, inner), '[unreadable]');
  const items: string[] = [];
  if (isArray(value)) {
    const length = value.length;
    for (let index = 0; index < length && index < 100; index++) append(items, show(value[index]));
    if (length > 100) append(items, '... ' + (length - 100) + ' more items');
    return items.length === 0 ? '[]' : '[ ' + arrayJoin(items, ', ') + ' ]';
  }
  if (isMap(value)) {
    const iterator = mapEntries(value);
    for (let step = iteratorNext(iterator); !step.done && items.length < 100; step = iteratorNext(iterator))
      append(items, show(step.value[0]) + ' => ' + show(step.value[1]));
    return 'Map(' + mapSize(value) + ') { ' + arrayJoin(items, ', ') + ' }';
  }
  if (isSet(value)) {
    const iterator = setValues(value);
    for (let step = setIteratorNext(iterator); !step.done && items.length < 100; step = setIteratorNext(iterator))
      append(items, show(step.value));
    return 'Set(' + setSize(value) + ') { ' + arrayJoin(items, ', ') + ' }';
  }
  // URL and URLSearchParams keep their state out of sight (see url.ts): shown by it.
  const web = webInspector === undefined ? undefined : webInspector(value, show);
  if (web !== undefined) return web;
  const keys = objectKeys(value);
  for (let index = 0; index < keys.length && index < 100; index++) {
    const key = keys[index]!;
    append(
      items,
      (regExpTest(IDENTIFIER, key) ? key : jsonStringify(key)) +
        ': ' +
        safe(() => show((value as Record<string, unknown>)[key]), '[Getter threw]'),
    );
  }
  if (keys.length > 100) append(items, '... ' + (keys.length - 100) + ' more keys');
  const constructorName: unknown = safe(
    () => (getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name,
    undefined,
  );
  const prefix = typeof constructorName === 'string' && constructorName !== 'Object' ? constructorName + ' ' : '';
  return prefix + (items.length === 0 ? '{}' : '{ ' + arrayJoin(items, ', ') + ' }');
}

function logger(level: string): (...values: unknown[]) => void {
  return (...values) => {
    const parts: string[] = [];
    for (let index = 0; index < values.length; index++)
      append(
        parts,
        safe(() => inspect(values[index], 0, []), '[unformattable]'),
      );
    if (!writeLog(level, arrayJoin(parts, ' '))) throw new RangeErrorConstructor('console output passed the output limit of this run');
  };
}
const consoleObject = ObjectFreeze({
  log: logger('log'),
  info: logger('info'),
  warn: logger('warn'),
  error: logger('error'),
  debug: logger('debug'),
  trace: logger('debug'),
});
defineProperty(globalThis, 'console', { value: consoleObject, enumerable: false, writable: true, configurable: true });
