function describeError(thrown: unknown): Record<string, unknown> {
  const isError = safe(
    () =>
      thrown instanceof ErrorConstructor ||
      (typeof thrown === 'object' && thrown !== null && typeof (thrown as { stack?: unknown }).stack === 'string'),
    false,
  );
  if (!isError) {
    return {
      __proto__: null,
      name: 'ThrownValue',
      code: 'RUNTIME_ERROR',
      message: 'the program threw a non-Error value: ' + safe(() => inspect(thrown, 1, []), '[unreadable]'),
    };
  }
  const error = thrown as { name?: unknown; message?: unknown; stack?: unknown };
  const text = <F>(read: () => unknown, fallback: F): string | F =>
    safe(() => {
      const value = read();
      return typeof value === 'string' ? value : fallback;
    }, fallback);
  // Null prototypes: JSON.stringify must not find a toJSON the program put on Object.prototype.
  const description: Record<string, unknown> = {
    __proto__: null,
    name: text(() => error.name, 'Error'),
    message: text(() => error.message, ''),
    stack: text(() => error.stack, undefined),
    code: 'RUNTIME_ERROR',
  };
  const tool = weakMapGet(toolErrors, thrown as object) as ToolErrorRecord | undefined;
  if (tool !== undefined) {
    description.code = tool.code;
    description.capability = tool.capability;
    description.function = tool.function;
  }
  return description;
}

async function run(main: () => unknown, runSettings: RunSettings): Promise<void> {
  settings = ownSettings(runSettings);
  let value: unknown;
  try {
    value = await main();
    if (typeof value === 'function') value = await value();
  } catch (thrown) {
    complete(false, stringifyJson(describeError(thrown), false)!);
    return;
  }
  let json: string | undefined;
  try {
    json = stringifyWithinDepth(value, true, settings.maxJsonDepth);
  } catch (thrown) {
    const reason =
      thrown === NESTS_TOO_DEEPLY
        ? 'it nests too deeply (more than ' + settings.maxJsonDepth + ' levels, the most the sandbox returns)'
        : (safe(() => findNonJson(value, '$', []), undefined) ??
          (thrown === NOT_JSON
            ? 'it holds a function or symbol'
            : safe(() => StringConstructor((thrown as { message?: unknown }).message), 'unknown reason')));
    complete(
      false,
      stringifyJson(
        {
          __proto__: null,
          name: 'ResultError',
          code: 'RESULT_NOT_SERIALIZABLE',
          message: 'the result is not JSON-serialisable: ' + reason,
        },
        false,
      )!,
    );
    return;
  }
  complete(true, json === undefined ? 'null' : json);
}
